package dev.baton.cli.options;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Adversary (adv22o): text from the logs printed in a table cannot forge a row or move the cursor. */
class Adv22oPrintableTest {

    @Test
    void shouldEscapeWhatCouldForgeARowOrMoveTheCursorAndLeaveTheRestAlone() {
        assertThat(Printable.of("shop/order-1/charge")).isEqualTo("shop/order-1/charge");
        assertThat(Printable.of("naïve ✓ 注文")).isEqualTo("naïve ✓ 注文");
        assertThat(Printable.of("a\nb")).isEqualTo("a\\u000ab");
        assertThat(Printable.of("\u001b[2Kx\r")).isEqualTo("\\u001b[2Kx\\u000d");
        assertThat(Printable.of("\u202eevil")).isEqualTo("\\u202eevil");
        assertThat(Printable.of("\u0085")).isEqualTo("\\u0085");
        assertThat(Printable.of("a\\u000ab")).as("a backslash doubles: an escape cannot be forged").isEqualTo("a\\\\u000ab");
        assertThat(Printable.of(null)).isEqualTo("-");
    }
}
