/**
 * The scenarios ({@code Scenario}) and how they drive the contenders: the timed loops of one JVM
 * ({@code LoadScenarios}, {@code ManyHeldScenario}), the contended run over several JVMs
 * ({@code ContendedProcesses}, sharing a {@code ContendedArena}, each thread's {@code ContendedTally})
 * and the single-thread ones under JMH ({@code SingleThreadBenchmark}).
 */
package dev.dlock.bench.scenarios;
