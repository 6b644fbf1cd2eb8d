package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.UUID;

import dev.baton.events.SiteRef;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.payload.ReportLimits;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 22 (worker lifecycle): worker misuse that was not refused when the worker was built, though
 * it fails later, silently or misleadingly. Each must fail fast naming the constraint and the value.
 */
class Adv22wWorkerMisuseTest {

    private static WorkerOptions.Builder options() {
        return WorkerOptions.builder().bootstrapServers("localhost:1").queues("q").handler("t", (ctx, in) -> in);
    }

    /**
     * Finding 2. A worker id over 256 characters was accepted; the streams app dead-letters every report that
     * names it (the same {@link ReportLimits} the worker holds), leases included. The worker committed the
     * task's offset with its lease and runs the handler, but the site never sees a lease, a heartbeat or a
     * completion: it stays pending with no deadline armed, and its caller is never answered.
     */
    @Test
    void aWorkerIdOverTheStreamsAppsBoundIsRefusedWhenTheWorkerIsBuilt() {
        String id = "w".repeat(ReportLimits.MAX_ID_CHARS + 1);
        WorkerEvent lease = WorkerEvent.newBuilder().setKind(WorkerEventKind.LEASED).setSite(new SiteRef("ns", "wf", "a")).setAttempt(1)
                .setGeneration(1).setToken(CompletionToken.random().value()).setWorkerId(id).setAtMillis(1L)
                .setHeartbeatDetails((ByteBuffer) null).build();
        assertThat(ReportLimits.defaults().problemWith(lease)).as("what the streams app says of this worker's lease").isPresent();

        assertThatThrownBy(() -> options().workerId(id).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("workerId").hasMessageContaining("256").hasMessageContaining("257");
        assertThatThrownBy(() -> new WorkerConfig(Map.of("bootstrap.servers", "localhost:1", "worker.id", id)).toOptions().queues("q")
                .handler("t", (ctx, in) -> in).build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("256");
    }

    /**
     * Finding 3. {@code queues("a", "a")} (or {@code baton worker --queue a --queue a}) started two loops of one
     * queue under one transactional id: the second fenced the first, which stopped with an ERROR blaming
     * "another process" with the same worker id.
     */
    @Test
    void aQueueNamedTwiceIsRefused() {
        assertThatThrownBy(() -> options().queues("a", "b", "a").build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a'").hasMessageContaining("[a, b, a]");
    }

    /**
     * Finding 15 (low). {@code handler("charge", null)} was accepted by the builder; {@code build()} then failed in
     * {@code Map.copyOf} with a {@code NullPointerException} without a message, naming neither the activity type nor
     * what was null.
     */
    @Test
    void aNullHandlerIsRefusedNamingItsActivityType() {
        assertThatThrownBy(() -> options().handler("charge", (ActivityHandler) null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("'charge'");
        assertThatThrownBy(() -> options().handler(null, (ctx, in) -> in)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("activityType");
    }

    /**
     * Finding 4. {@code maxPayloadBytes} above the streams app's own maximum (983,040: its config refuses more)
     * was accepted by the builder and by the completion client's config. An output between that and the worker's
     * value is sent, then refused by the broker (over {@code max.request.size}) or dead-lettered by the streams app:
     * the completion is lost and the activity runs again until {@code transport-exhausted}.
     */
    @Test
    void aPayloadLimitAboveTheStreamsAppsMaximumIsRefused() {
        assertThatThrownBy(() -> options().maxPayloadBytes(983_041).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("983040").hasMessageContaining("983041");
        assertThatThrownBy(() -> ActivityCompletionClient.create(Map.of("bootstrap.servers", "localhost:1", "max.payload.bytes", 2_000_000),
                "mem://" + UUID.randomUUID()).close()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2000000");
    }
}
