package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FormatLocaleTest {

    private Locale before;

    @BeforeEach
    void remember() {
        before = Locale.getDefault(Locale.Category.FORMAT);
    }

    @AfterEach
    void restore() {
        Locale.setDefault(Locale.Category.FORMAT, before);
    }

    @Test
    void shouldGiveBareEnglishTheUsCountry() {
        Locale.setDefault(Locale.Category.FORMAT, new Locale("en"));

        FormatLocale.preferUsForBareEnglish();

        assertThat(Locale.getDefault(Locale.Category.FORMAT)).isEqualTo(Locale.US);
        assertThat(String.format("%d of %,d", 7, 12345)).as("the same digits and separators as before").isEqualTo("7 of 12,345");
    }

    @Test
    void shouldLeaveEveryOtherLocaleAlone() {
        for (Locale other : new Locale[] {Locale.UK, Locale.GERMANY, new Locale("fr"), Locale.forLanguageTag("en-u-nu-arab")}) {
            Locale.setDefault(Locale.Category.FORMAT, other);

            FormatLocale.preferUsForBareEnglish();

            assertThat(Locale.getDefault(Locale.Category.FORMAT)).isEqualTo(other);
        }
    }
}
