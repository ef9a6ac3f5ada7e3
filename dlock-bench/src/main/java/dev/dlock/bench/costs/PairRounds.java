package dev.dlock.bench.costs;

/**
 * The command line of the one-off cost programs ({@link ReplicaAcksCost}, {@link MetricsCost},
 * {@link RedlockScriptFloor}): how many acquire+release pairs per round, and how many rounds.
 */
record PairRounds(int pairs, int rounds) {

    /** Reads {@code [--pairs N] [--rounds N]}; an unknown argument fails naming it and the usage. */
    static PairRounds parse(String program, String[] args, int defaultPairs, int defaultRounds) {
        int pairs = defaultPairs;
        int rounds = defaultRounds;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--pairs" -> pairs = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument '" + args[i]
                        + "'; usage: " + program + " [--pairs N] [--rounds N]");
            }
        }
        return new PairRounds(pairs, rounds);
    }
}
