package dev.baton.streams.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.baton.events.ActivityTask;
import dev.baton.events.SiteRef;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.ForwardingSchemaRegistry;
import dev.baton.schemas.registry.SchemaRegistry;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TaskSubjectsTest {

    /** Who registered which subject, on which thread. */
    private final List<String> registrations = new CopyOnWriteArrayList<>();
    private final SchemaRegistry memory = SchemaRegistry.forUrl("mem://task-subjects", Map.of());
    private final SchemaRegistry watched = new ForwardingSchemaRegistry(memory) {
        @Override
        public int register(String subject, Schema schema) {
            registrations.add(subject + " on " + Thread.currentThread().getName());
            return super.register(subject, schema);
        }

        @Override
        public void close() {
            // memory is closed after each test
        }
    };
    private final EventSerde<ActivityTask> tasks = EventSerde.of(ActivityTask.class, watched);
    private final TaskSubjects subjects = new TaskSubjects(tasks);

    @AfterEach
    void close() {
        subjects.close();
        memory.close();
    }

    @Test
    void shouldRegisterANewQueuesSubjectOffTheThreadThatEncodesItsTasks() {
        subjects.seen(Set.of("baton.tasks.payments", "baton.dispatch", "baton.tasks.payments.gpu"));

        await().atMost(Duration.ofSeconds(10)).until(() -> registrations.size() == 2);
        assertThat(registrations).containsExactlyInAnyOrder("baton.tasks.payments-value on baton-task-subjects",
                "baton.tasks.payments.gpu-value on baton-task-subjects");

        tasks.encode("baton.tasks.payments", task());
        subjects.seen(Set.of("baton.tasks.payments"));

        assertThat(registrations).as("the first task found its subject registered; a topic seen again is not registered again").hasSize(2);
    }

    private static ActivityTask task() {
        return ActivityTask.newBuilder().setSite(new SiteRef("ns", "wf", "1")).setAttempt(1).setGeneration(1).setToken("t".repeat(22))
                .setIdempotencyKey("k").setQueue("payments").setActivityType("charge").setScheduledAtMillis(1L).build();
    }
}
