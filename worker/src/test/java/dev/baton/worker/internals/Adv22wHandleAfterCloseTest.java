package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.util.Map;

import dev.baton.events.WorkerEvent;
import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.payload.ReportLimits;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.worker.AsyncCompletion;
import dev.baton.worker.CompletionRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adversary round 22 (worker lifecycle), finding 10 (low). {@link AsyncCompletion} sends through its worker; after the
 * worker closed (a drain: deploys do this) its holder's next heartbeat or completion threw Kafka's
 * "Cannot perform operation after producer has been closed", which names neither the worker, nor the rule
 * (its javadoc: use {@code ActivityCompletionClient} after the worker closed), nor how to go on (the handle's
 * {@code token()}). Misuse must fail naming the broken constraint.
 */
class Adv22wHandleAfterCloseTest {

    private final SchemaRegistry registry = SchemaRegistry.forUrl("mem://adv22w-after-close", Map.of());

    @AfterEach
    void close() {
        registry.close();
    }

    @Test
    void aHandleUsedAfterItsWorkerClosedSaysSoAndWhatToUseInstead() {
        EventSender events = new EventSender(Map.of("bootstrap.servers", "localhost:1"), EventSerde.of(WorkerEvent.class, registry), "w-1",
                Clock.systemUTC(), ReportLimits.defaults());
        AsyncCompletion handle = new HandedOffCompletion(new CompletionRef(new SiteKey("ns", "wf", "a"), 1, 1,
                CompletionToken.random().value()), new Completer(events, PayloadConverters.defaults()));
        events.close();

        assertThatThrownBy(() -> handle.heartbeat("progress")).isInstanceOf(IllegalStateException.class).hasMessageContaining("w-1")
                .hasMessageContaining("closed").hasMessageContaining("ActivityCompletionClient");
        assertThatThrownBy(() -> handle.complete("done")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ActivityCompletionClient");
    }
}
