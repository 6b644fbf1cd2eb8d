package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.schemas.failure.ActivityFailure;
import org.junit.jupiter.api.Test;

class FailureLinesTest {

    @Test
    void shouldPrintEachLinkOfTheChainAndItsStackOnlyWhenAsked() {
        ActivityFailure failure = new ActivityFailure("CardDeclined", "declined\nby the bank", null, "CardDeclined: declined\n\tat shop.Pay.charge(Pay.java:7)\n",
                ActivityFailure.of("java.io.IOException", "reset"));

        assertThat(FailureLines.of(failure, false, "  "))
                .containsExactly("  failure: CardDeclined: declined by the bank", "  caused by: java.io.IOException: reset");
        assertThat(FailureLines.of(failure, true, "  "))
                .containsExactly("  failure: CardDeclined: declined by the bank", "      CardDeclined: declined", "      at shop.Pay.charge(Pay.java:7)",
                        "  caused by: java.io.IOException: reset");
    }

    @Test
    void shouldPrintNothingWithoutAFailure() {
        assertThat(FailureLines.of(null, true, "  ")).isEmpty();
    }
}
