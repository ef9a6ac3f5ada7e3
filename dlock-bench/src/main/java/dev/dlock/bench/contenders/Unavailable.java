package dev.dlock.bench.contenders;

/** A contender that cannot run in this build; the report shows the reason instead of a figure. */
public final class Unavailable extends RuntimeException {

    public Unavailable(String reason) {
        super(reason, null, false, false);
    }
}
