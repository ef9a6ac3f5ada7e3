/**
 * The figures of a run ({@code Results}: per scenario, contender and round, and their medians) and
 * {@code docs/benchmarks.md} written from them ({@code Report}).
 */
package dev.dlock.bench.report;
