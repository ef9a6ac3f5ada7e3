/**
 * The commands that show locks without taking them: {@code dlock status}, {@code dlock list} and
 * {@code dlock top} (and its view, {@code TopView}).
 */
package dev.dlock.cli.inspect;
