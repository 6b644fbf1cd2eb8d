/**
 * Operator commands: {@code baton status}, {@code site describe}, {@code sites list}, {@code cancel}
 * and {@code dlq list|replay}. Each prints a table by default and JSON with {@code -o json}; the
 * site commands read the streams app's query API, which answers for every instance of the app.
 */
package dev.baton.cli.ops;
