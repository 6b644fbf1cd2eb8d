package dev.baton.testkit.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityFailedException;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.schemas.failure.ActivityFailure;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.worker.ActivityCompletionClient;
import dev.baton.worker.ActivityStoppedException;
import dev.baton.worker.CompletionRef;
import dev.baton.worker.TerminalActivityException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The extension used as a user would, end to end on the embedded broker: a structured failure reaches
 * the typed caller with its type, message, details and stack; a handed-off activity completes by its
 * token from another client, and a stale token is refused.
 */
class BatonExtensionIT {

    record Charge(String customer, long cents) {
    }

    record Receipt(String id) {
    }

    record Decline(int code) {
    }

    /** Tokens of handed-off generations, in the order the handler saw them. */
    private static final BlockingQueue<String> HANDED_OFF = new LinkedBlockingQueue<>();

    @RegisterExtension
    static final BatonExtension BATON = BatonExtension.builder().queues("payments")
            .handler("charge", Charge.class, (ctx, charge) -> {
                throw new TerminalActivityException("CardDeclined", "card of " + charge.customer() + " declined", new Decline(51),
                        new IllegalStateException("gateway said 402"));
            })
            .handler("approve", Charge.class, (ctx, charge) -> {
                HANDED_OFF.add(ctx.completeLater().token());
                return null;
            })
            .build();

    @Test
    void shouldDeliverTheWorkersStructuredFailureToTheTypedCaller(DispatchClient client) {
        CompletableFuture<Receipt> receipt = client.dispatch(BATON.request("charge").input(new Charge("c-7", 1200)).build(), Receipt.class);

        Throwable thrown = catchThrowable(() -> receipt.get(60, TimeUnit.SECONDS));

        assertThat(thrown).isInstanceOf(ExecutionException.class).cause().isInstanceOf(ActivityFailedException.class);
        ActivityFailedException failed = (ActivityFailedException) thrown.getCause();
        assertThat(failed.reason()).isEqualTo("terminal: card of c-7 declined");
        ActivityFailure failure = failed.failure();
        assertThat(failure.type()).isEqualTo("CardDeclined");
        assertThat(failure.message()).isEqualTo("card of c-7 declined");
        assertThat(failure.detailsAs(Decline.class, PayloadConverters.defaults())).isEqualTo(new Decline(51));
        assertThat(failure.stack()).as("the handler's frames, from the worker").contains(BatonExtensionIT.class.getName());
        assertThat(failure.cause().type()).isEqualTo(IllegalStateException.class.getName());
        assertThat(failure.cause().message()).isEqualTo("gateway said 402");
    }

    @Test
    void shouldCompleteAHandedOffActivityByItsTokenFromAnotherClient(DispatchClient client, ActivityCompletionClient completions)
            throws Exception {
        HANDED_OFF.clear();
        CompletableFuture<Receipt> receipt = client.dispatch(BATON.request("approve").input(new Charge("c-8", 10)).build(), Receipt.class);
        String token = HANDED_OFF.poll(60, TimeUnit.SECONDS);
        assertThat(token).as("the handler handed its generation off").isNotNull();

        completions.complete(token, new Receipt("approved-by-clerk")).get(30, TimeUnit.SECONDS);

        assertThat(receipt.get(60, TimeUnit.SECONDS)).isEqualTo(new Receipt("approved-by-clerk"));
    }

    @Test
    void shouldRefuseACompletionByATokenWhoseGenerationWasLost(DispatchClient client, ActivityCompletionClient completions)
            throws Exception {
        HANDED_OFF.clear();
        // Nobody heartbeats the handed-off generation: after the window it is lost and re-delivered.
        CompletableFuture<Receipt> receipt = client.dispatch(BATON.request("approve").input(new Charge("c-9", 10))
                .heartbeat(Duration.ofSeconds(3)).build(), Receipt.class);
        String stale = HANDED_OFF.poll(60, TimeUnit.SECONDS);
        String current = HANDED_OFF.poll(60, TimeUnit.SECONDS);
        assertThat(current).as("a second generation was delivered").isNotNull();
        assertThat(CompletionRef.parse(current).generation()).isEqualTo(CompletionRef.parse(stale).generation() + 1);

        // Same site, same producer: the stale completion reaches the streams app first, and would win if it were accepted.
        completions.complete(stale, new Receipt("from-the-lost-generation")).get(30, TimeUnit.SECONDS);
        completions.complete(current, new Receipt("from-the-current-generation")).get(30, TimeUnit.SECONDS);

        assertThat(receipt.get(60, TimeUnit.SECONDS)).isEqualTo(new Receipt("from-the-current-generation"));
    }

    @Test
    void shouldTellTheCompletionClientsHeartbeatThatItsActivityWasCancelled(DispatchClient client,
                                                                           ActivityCompletionClient completions) throws Exception {
        HANDED_OFF.clear();
        CompletableFuture<Receipt> receipt = client.dispatch(BATON.request("approve").input(new Charge("c-10", 10)).build(), Receipt.class);
        String token = HANDED_OFF.poll(60, TimeUnit.SECONDS);
        assertThat(token).as("the handler handed its generation off").isNotNull();
        completions.heartbeat(token, "working").get(30, TimeUnit.SECONDS);
        assertThat(completions.isStopped(token)).isFalse();

        client.cancel(CompletionRef.parse(token).site()).get(30, TimeUnit.SECONDS);
        assertThat(catchThrowable(() -> receipt.get(60, TimeUnit.SECONDS))).cause().isInstanceOf(ActivityFailedException.class)
                .hasMessageContaining("cancelled:");

        // The process keeps heartbeating as it works: Baton refuses the first heartbeat after the cancel and
        // tells this client to stop; a later heartbeat throws instead of sending.
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                assertThat(catchThrowable(() -> completions.heartbeat(token, "still working").get(30, TimeUnit.SECONDS)))
                        .isInstanceOf(ActivityStoppedException.class).hasMessageContaining("stop the work"));
        assertThat(completions.isStopped(token)).isTrue();
    }
}
