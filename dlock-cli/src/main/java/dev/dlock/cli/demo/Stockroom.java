package dev.dlock.cli.demo;

/**
 * Where one app server reads and writes the shop's stock and orders: plain reads and writes, each
 * on its own, nothing atomic (the shop's {@link Shop#buy} is the race the lock is there to
 * prevent). Safe for the app server's buyer threads at once. A sale is named by a string of the
 * run and mode, so that runs and modes never share a stock.
 */
interface Stockroom extends AutoCloseable {

    /** Puts {@code units} on the shelf of {@code sale} and clears its orders. */
    void stockUp(String sale, int units);

    /** The units left; 0 for a sale with no stock. */
    int stock(String sale);

    /** Writes the stock back, whatever it is now. */
    void writeStock(String sale, int units);

    void recordOrder(String sale, String buyer);

    /** Orders recorded: the truth about what was sold. */
    long orders(String sale);

    /** Leaves the sale's data for inspection; returns what was kept, for the user. */
    String keep(String sale);

    void delete(String sale);

    @Override
    void close();
}
