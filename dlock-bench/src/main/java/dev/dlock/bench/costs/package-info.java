/**
 * One-off programs that each measure one cost outside the default plan, run with
 * {@code java -cp dlock-bench.jar dev.dlock.bench.costs.NAME}: {@code ReplicaAcksCost},
 * {@code MetricsCost}, {@code RedlockScriptFloor}, {@code ClusterFailoverWindow} (their command
 * line: {@code PairRounds}).
 */
package dev.dlock.bench.costs;
