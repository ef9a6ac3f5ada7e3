/**
 * The lock implementations under test and the references ({@code Contenders}, each opened as a
 * {@code Contender} whose locks are {@code BenchLock}s): dlock's, Redisson's, floors written on
 * Lettuce ({@code RawContenders}, {@code RawHandoffFloor}) and the CLI run per measurement
 * ({@code CliStartup}). Never names a scenario or the report.
 */
package dev.dlock.bench.contenders;
