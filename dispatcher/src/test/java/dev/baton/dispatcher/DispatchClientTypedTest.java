package dev.baton.dispatcher;

import static dev.baton.dispatcher.DispatchClientHarness.CLIENT_ID;
import static dev.baton.dispatcher.DispatchClientHarness.WAIT;
import static dev.baton.dispatcher.DispatchClientHarness.failureOf;
import static dev.baton.dispatcher.DispatchClientHarness.request;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import dev.baton.dispatcher.internals.OutcomeEvents;
import dev.baton.events.DispatchCommand;
import dev.baton.events.Failure;
import dev.baton.events.Payload;
import dev.baton.schemas.failure.ActivityFailure;
import dev.baton.schemas.payload.PayloadConversionException;
import dev.baton.schemas.payload.PayloadConverters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Typed dispatch: the input written by a converter with its content type, the output read by the converter of its content type. */
class DispatchClientTypedTest {

    record Charge(String customer, long cents) {
    }

    record Receipt(String id, long cents) {
    }

    record Decline(int code) {
    }

    private final DispatchClientHarness harness = DispatchClientHarness.start();

    @AfterEach
    void close() {
        harness.close();
    }

    @Test
    void shouldSendATypedInputAsJsonWithItsContentType() {
        harness.client.dispatch(request().input(new Charge("c-7", 1200)).build(), Receipt.class);

        DispatchCommand cmd = harness.onlyCommand();
        assertThat(cmd.getInput().getContentType()).isEqualTo("application/json");
        assertThat(UTF_8.decode(cmd.getInput().getData()).toString()).isEqualTo("{\"customer\":\"c-7\",\"cents\":1200}");
    }

    @Test
    void shouldCompleteWithTheOutputReadByTheConverterOfItsContentType() {
        CompletableFuture<Receipt> future = harness.client.dispatch(request().input(new Charge("c-7", 1200)).build(), Receipt.class);

        harness.deliver(CLIENT_ID, OutcomeEvents.completed(harness.onlyCommand().getRequestId(), CLIENT_ID)
                .setOutput(new Payload(ByteBuffer.wrap("{\"id\":\"r-1\",\"cents\":1200}".getBytes(UTF_8)), "application/json")).build());

        assertThat(future).succeedsWithin(WAIT).isEqualTo(new Receipt("r-1", 1200));
    }

    @Test
    void shouldFailWithActivityFailedExceptionCarryingTheReason() {
        CompletableFuture<Receipt> future = harness.client.dispatch(request().build(), Receipt.class);

        harness.deliver(CLIENT_ID, OutcomeEvents.failed(harness.onlyCommand().getRequestId(), CLIENT_ID, "terminal: card declined").build());

        assertThat(future).failsWithin(WAIT);
        Throwable failure = failureOf(future);
        assertThat(failure).isInstanceOf(ActivityFailedException.class).hasMessageContaining("terminal: card declined");
        ActivityFailedException failed = (ActivityFailedException) failure;
        assertThat(failed.reasonPrefix()).isEqualTo("terminal:");
        assertThat(failed.outcome().completed()).isFalse();
        assertThat(failed.requestId()).isEqualTo(harness.onlyCommand().getRequestId());
    }

    @Test
    void shouldHandTheWorkersStructuredFailureToTypedAndUntypedCallers() {
        Failure thrown = new Failure("CardDeclined", "card declined", new Payload(ByteBuffer.wrap("{\"code\":51}".getBytes(UTF_8)),
                "application/json"), "at Charge.run(Charge.java:12)\n", new Failure("java.io.IOException", "gateway 402", null, "", null));
        CompletableFuture<Receipt> typed = harness.client.dispatch(request().build(), Receipt.class);
        String typedId = harness.onlyCommand().getRequestId();
        harness.deliver(CLIENT_ID, OutcomeEvents.failed(typedId, CLIENT_ID, "terminal: card declined").setFailure(thrown).build());

        assertThat(typed).failsWithin(WAIT);
        ActivityFailure failure = ((ActivityFailedException) failureOf(typed)).failure();
        assertThat(failure.type()).isEqualTo("CardDeclined");
        assertThat(failure.message()).isEqualTo("card declined");
        assertThat(failure.stack()).isEqualTo("at Charge.run(Charge.java:12)\n");
        assertThat(failure.detailsAs(Decline.class, PayloadConverters.defaults())).isEqualTo(new Decline(51));
        assertThat(failure.cause().message()).isEqualTo("gateway 402");
        assertThat(failureOf(typed)).hasMessageContaining("CardDeclined: card declined");
    }

    @Test
    void shouldTypeAFailureBatonDecidedByItsReasonPrefix() {
        CompletableFuture<ActivityOutcome> untyped = harness.client.dispatch(request().build());
        harness.deliver(CLIENT_ID, OutcomeEvents.failed(harness.onlyCommand().getRequestId(), CLIENT_ID, "cancelled: by operator").build());

        assertThat(untyped).succeedsWithin(WAIT).satisfies(o -> {
            assertThat(o.failure()).as("no worker failure").isNull();
            assertThat(o.failureOrReason()).hasValue(ActivityFailure.of("cancelled", "cancelled: by operator"));
        });
    }

    @Test
    void shouldFailNamingTheContentTypeWhenTheOutputCannotBeReadAsTheType() {
        CompletableFuture<Receipt> future = harness.client.dispatch(request().build(), Receipt.class);

        harness.deliver(CLIENT_ID, OutcomeEvents.completed(harness.onlyCommand().getRequestId(), CLIENT_ID).build()); // "ok", text/plain

        assertThat(future).failsWithin(WAIT);
        assertThat(failureOf(future)).isInstanceOf(PayloadConversionException.class).hasMessageContaining("text/plain");
    }

    @Test
    void shouldGiveTheRawBytesToACallerAskingForBytes() {
        CompletableFuture<byte[]> future = harness.client.dispatch(request().build(), byte[].class);

        harness.deliver(CLIENT_ID, OutcomeEvents.completed(harness.onlyCommand().getRequestId(), CLIENT_ID).build());

        assertThat(future).succeedsWithin(WAIT).isEqualTo("ok".getBytes(UTF_8));
    }
}
