/**
 * The terminal dlock runs at: whether it is one ({@code Terminal}), its settings through stty(1)
 * ({@code Stty}) and a screen redrawn in place ({@code LiveScreen}). Uses no other package of the CLI.
 */
package dev.dlock.cli.terminal;
