/**
 * {@code dlock exec}: flock(1) across hosts. The lock it holds ({@code ExecLock}), the command it
 * runs ({@code ChildProcess}, started through {@code StartCommand}) and the signals it passes on
 * ({@code SignalRelay}).
 */
package dev.dlock.cli.exec;
