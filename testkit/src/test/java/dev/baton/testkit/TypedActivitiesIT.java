package dev.baton.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.concurrent.ExecutionException;

import dev.baton.dispatcher.ActivityFailedException;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.events.SiteRef;
import dev.baton.schemas.payload.AvroPayloadConverter;
import dev.baton.worker.TerminalActivityException;
import dev.baton.worker.WorkerOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Typed handlers and typed dispatch end to end on the embedded broker, with the content types each side wrote. */
class TypedActivitiesIT {

    record Charge(String customer, long cents) {
    }

    record Receipt(String id, String customer, long cents) {
    }

    private static LocalCluster cluster;
    private static DispatchClient client;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.start(3, List.of("payments"));
        client = cluster.client("typed", unmatched -> { });
        cluster.worker(WorkerOptions.builder().queues("payments")
                .handler("charge", Charge.class, (ctx, charge) -> new Receipt("receipt-" + ctx.idempotencyKey(), charge.customer(), charge.cents()))
                .handler("decline", Charge.class, (ctx, charge) -> {
                    throw new TerminalActivityException("card of " + charge.customer() + " declined");
                })
                .handler("mirror", SiteRef.class, (ctx, ref) -> new SiteRef(ref.getActivityId(), ref.getWorkflowId(), ref.getNamespace())));
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldRunATypedHandlerAndCompleteATypedDispatchWithItsOutput() throws Exception {
        ActivityRequest request = request("order-1", "charge").input(new Charge("c-7", 1200)).build();

        Receipt receipt = client.dispatch(request, Receipt.class).get(60, SECONDS);

        assertThat(receipt).isEqualTo(new Receipt("receipt-" + request.idempotencyKey(), "c-7", 1200));
    }

    @Test
    void shouldLabelATypedHandlersOutputWithItsConvertersContentType() throws Exception {
        ActivityOutcome outcome = client.dispatch(request("order-2", "charge").input(new Charge("c-8", 5)).build()).get(60, SECONDS);

        assertThat(outcome.completed()).isTrue();
        assertThat(outcome.contentType()).isEqualTo("application/json");
        assertThat(outcome.outputAs(Receipt.class).cents()).isEqualTo(5);
    }

    @Test
    void shouldCarryAvroRecordsBothWays() throws Exception {
        ActivityOutcome outcome = client.dispatch(request("order-3", "mirror").input(new SiteRef("a", "b", "c")).build()).get(60, SECONDS);

        assertThat(outcome.contentType()).isEqualTo(AvroPayloadConverter.CONTENT_TYPE);
        assertThat(outcome.outputAs(SiteRef.class)).isEqualTo(new SiteRef("c", "b", "a"));
    }

    @Test
    void shouldFailATypedDispatchWithTheReasonOfTheFailure() {
        Throwable thrown = catchThrowable(() -> client.dispatch(request("order-4", "decline").input(new Charge("c-9", 1)).build(), Receipt.class)
                .get(60, SECONDS));

        assertThat(thrown).isInstanceOf(ExecutionException.class).cause().isInstanceOf(ActivityFailedException.class);
        ActivityFailedException failed = (ActivityFailedException) thrown.getCause();
        assertThat(failed.reasonPrefix()).isEqualTo("terminal:");
        assertThat(failed.reason()).contains("card of c-9 declined");
    }

    @Test
    void shouldFailTerminallyWhenTheInputsContentTypeCannotBeReadAsTheHandlersType() throws Exception {
        ActivityOutcome outcome = client.dispatch(request("order-5", "charge").input("{\"customer\":\"c\"}".getBytes(UTF_8), "text/plain").build())
                .get(60, SECONDS);

        assertThat(outcome.completed()).isFalse();
        assertThat(outcome.reasonPrefix()).isEqualTo("terminal:");
        assertThat(outcome.reason()).contains("text/plain").contains(Charge.class.getName());
    }

    private static ActivityRequest.Builder request(String workflowId, String activityType) {
        return ActivityRequest.builder().site("shop", workflowId, activityType).queue("payments").activityType(activityType);
    }
}
