/** The {@code baton} command: one picocli subcommand per process or operator tool, and nothing else. */
package dev.baton.cli;
