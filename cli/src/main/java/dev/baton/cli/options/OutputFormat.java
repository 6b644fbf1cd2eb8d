package dev.baton.cli.options;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * The {@code -o} option every operator command shares: {@code table} (for people, the default) or
 * {@code json} (for tools). A command answering a query prints one JSON document; a command listing
 * a log's records ({@code outbox}, {@code dlq list|replay}) prints one JSON object per line.
 */
public final class OutputFormat {

    /** How a command prints. */
    public enum Format { TABLE, JSON }

    @Option(names = {"-o", "--output"}, paramLabel = "table|json", defaultValue = "table", converter = FormatConverter.class,
            description = "table (default; 'text' is the same), or json")
    Format format = Format.TABLE;

    public boolean json() {
        return format == Format.JSON;
    }

    /** Accepts table, text (the name baton outbox used first) and json, in any case. */
    static final class FormatConverter implements ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            return switch (value.strip().toLowerCase(java.util.Locale.ROOT)) {
                case "table", "text" -> Format.TABLE;
                case "json" -> Format.JSON;
                default -> throw new IllegalArgumentException("output must be table or json, was '" + value + "'");
            };
        }
    }
}
