package dev.baton.cli;

import java.util.Locale;

/**
 * The process's formatting locale, when the environment names English without a country ({@code LANG=C.UTF-8} gives
 * the JVM {@code en}), is made {@code en_US}: the same digits and separators, but {@link String#format} takes its fast
 * path only for {@code en_US} (any other locale builds a {@code DecimalFormatSymbols} per {@code %d}, ~2.3x the time here).
 * Kafka Streams 4.4 formats log text on every record a task with two inputs processes, even when nothing is logged
 * ({@code PartitionGroup.readyToProcess} under {@code max.task.idle.ms=0}, the streams app's at-least-once setting).
 * See docs/decisions.md, "Kafka Streams formats a string per record: the locale it formats in".
 */
final class FormatLocale {

    private FormatLocale() {
    }

    /** Called once by {@code main}, before any thread starts; any other locale is left as it is. */
    static void preferUsForBareEnglish() {
        Locale format = Locale.getDefault(Locale.Category.FORMAT);
        if (format.getLanguage().equals("en") && format.getCountry().isEmpty() && format.getVariant().isEmpty() && !format.hasExtensions()) {
            Locale.setDefault(Locale.Category.FORMAT, Locale.US);
        }
    }
}
