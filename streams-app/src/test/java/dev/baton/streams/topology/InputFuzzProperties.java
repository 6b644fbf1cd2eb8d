package dev.baton.streams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;

import dev.baton.events.ActivityTask;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.SiteKey;
import dev.baton.topics.BatonTopics;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzzes the topology's inputs with a fixed seed: random bytes on both input topics, and well-formed
 * Avro with absurd values aimed at a live site with its real token. Nothing may escape the
 * processor, a bad record yields exactly one dead letter, and the live site's current generation is
 * never consumed: after all of it, the real completion still resolves the site.
 */
class InputFuzzProperties {

    private static SiteHarness h;
    private static ActivityTask guard;
    private static final SiteKey GUARD = SiteHarness.site("guard");

    @BeforeContainer
    static void start() {
        h = new SiteHarness();
        h.send(SiteHarness.request(GUARD, 1, "guard-request").build());
        guard = h.tasks().get(0);
        h.report(guard, WorkerEventKind.LEASED, "w1");
        h.results();
    }

    @AfterContainer
    static void finish() {
        try {
            h.complete(guard, "w1", "the real one");
            assertThat(h.results()).anySatisfy(o -> {
                assertThat(o.getRequestId()).isEqualTo("guard-request");
                assertThat(o.getStatus()).isEqualTo(OutcomeStatus.COMPLETED);
                assertThat(o.getOutput()).isEqualTo(SiteHarness.payload("the real one"));
            });
        } finally {
            h.close();
        }
    }

    @Provide
    Arbitrary<byte[]> anyBytes() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(200);
    }

    @Property(tries = 10_000, seed = "7")
    void randomBytesOnEitherInputAreDeadLetteredOnce(@ForAll("anyBytes") byte[] value, @ForAll boolean dispatchTopic) {
        if (dispatchTopic) {
            h.pipeDispatch(SiteHarness.site("fuzz").toBytes(), value);
        } else {
            h.pipeWorkerEvent(GUARD.toBytes(), value);
        }
        assertThat(h.deadLetters()).singleElement().satisfies(d -> {
            assertThat(d.getReason()).isNotBlank();
            assertThat(d.getSourceTopic()).isEqualTo(dispatchTopic ? BatonTopics.DISPATCH : BatonTopics.WORKER_EVENTS);
        });
        assertThat(h.results()).noneMatch(o -> o.getRequestId().equals("guard-request"));
    }

    @Provide
    Arbitrary<String> tokens() {
        return Arbitraries.oneOf(Arbitraries.just("CURRENT"), Arbitraries.strings().ofMinLength(0).ofMaxLength(40));
    }

    @Property(tries = 10_000, seed = "8")
    void absurdValuesWithTheRealTokenNeverConsumeTheGeneration(@ForAll @IntRange(min = -3, max = 3) int attempt,
                                                               @ForAll @IntRange(min = -3, max = 3) int generation,
                                                               @ForAll("tokens") String token, @ForAll boolean emptyWorker,
                                                               @ForAll @IntRange(min = 0, max = 999) int sizeDie) {
        String t = token.equals("CURRENT") ? guard.getToken() : token;
        boolean valid = attempt >= 1 && generation >= 1 && t.length() == 22 && !emptyWorker;
        int size = sizeDie == 0 ? 10 * 1024 * 1024 : valid ? 2_000 : sizeDie; // an oversized payload, or an invalid record's small one
        // The one completion a healthy holder may send among these (its real token on valid fields, an output over the
        // limit) ends the run as a terminal OutputTooLarge failure (WorkerEventRulesTest, Adv22sOutputOverLimitTest): it
        // would consume the guard's generation, which every other try here must leave alone.
        Assume.that(!(valid && t.equals(guard.getToken()) && attempt == guard.getAttempt() && generation == guard.getGeneration()));
        WorkerEvent event = WorkerEvent.newBuilder().setKind(WorkerEventKind.COMPLETED).setSite(GUARD.toRef()).setAttempt(attempt)
                .setGeneration(generation).setToken(t).setWorkerId(emptyWorker ? "" : "fuzzer")
                .setOutput(new Payload(ByteBuffer.wrap(new byte[size]), "application/octet-stream")).setAtMillis(0L).build();

        h.pipeWorkerEvent(GUARD.toBytes(), h.serdes.workerEvent().encode(BatonTopics.WORKER_EVENTS, event));

        assertThat(h.deadLetters()).as("every such completion is bad: invalid fields or a payload over max.payload.bytes").hasSize(1);
        assertThat(h.results()).noneMatch(o -> o.getRequestId().equals("guard-request"));
    }
}
