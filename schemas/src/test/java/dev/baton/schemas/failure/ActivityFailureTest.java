package dev.baton.schemas.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import dev.baton.schemas.payload.EncodedPayload;
import org.junit.jupiter.api.Test;

class ActivityFailureTest {

    @Test
    void shouldKeepTypeMessageStackAndCausesOfAThrowable() {
        Exception thrown = new IllegalStateException("ledger closed", new UncheckedIOException(new IOException("disk gone")));

        ActivityFailure failure = ActivityFailure.from(thrown);

        assertThat(failure.type()).isEqualTo("java.lang.IllegalStateException");
        assertThat(failure.message()).isEqualTo("ledger closed");
        assertThat(failure.stack()).contains("at dev.baton.schemas.failure.ActivityFailureTest.shouldKeepTypeMessageStackAndCausesOfAThrowable");
        assertThat(failure.chain()).extracting(ActivityFailure::type)
                .containsExactly("java.lang.IllegalStateException", "java.io.UncheckedIOException", "java.io.IOException");
        assertThat(failure.chain().get(2).message()).isEqualTo("disk gone");
    }

    @Test
    void shouldRoundTripThroughItsAvroRecord() {
        EncodedPayload details = new EncodedPayload("{\"balance\":3}".getBytes(StandardCharsets.UTF_8), "application/json");
        ActivityFailure failure = ActivityFailure.from(new RuntimeException("boom", new IOException("io")), "InsufficientFunds", details);

        assertThat(ActivityFailure.of(failure.toAvro())).isEqualTo(failure);
    }

    @Test
    void shouldEndACyclicCauseChainWhereItRepeats() {
        Exception a = new Exception("a");
        Exception b = new Exception("b", a);
        a.initCause(b);

        assertThat(ActivityFailure.from(a).chain()).extracting(ActivityFailure::message).containsExactly("a", "b");
    }

    @Test
    void shouldCapTheChainAndEachStack() {
        Throwable deep = new Exception("root");
        for (int i = 0; i < 50; i++) {
            deep = new Exception("level " + i, deep);
        }
        ActivityFailure failure = ActivityFailure.from(deep);

        assertThat(failure.chain()).hasSize(ActivityFailure.MAX_CAUSES + 1);
        assertThat(new ActivityFailure("t", "m", null, "x".repeat(100_000), null).stack()).hasSize(ActivityFailure.MAX_STACK_CHARS);
    }

    @Test
    void shouldRefuseABlankTypeNamingIt() {
        assertThatThrownBy(() -> ActivityFailure.of(" ", "m")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a failure's type must not be blank, was ' '");
    }
}
