/**
 * What every command of the CLI shares: exit codes ({@code ExitCodes}), bad input
 * ({@code UsageException}), failures turned into a line and an exit code ({@code Errors},
 * {@code Refusals}), durations as people type them ({@code Durations}) and how a lock is shown
 * ({@code LockInfoView}). Depends on no other package of the CLI.
 */
package dev.dlock.cli.common;
