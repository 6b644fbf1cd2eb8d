package dev.baton.topics;

import java.util.Optional;

import dev.baton.events.ActivityTask;
import dev.baton.events.DeadLetter;
import dev.baton.events.DispatchCommand;
import dev.baton.events.HistoryEvent;
import dev.baton.events.Outcome;
import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerStatus;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;

/**
 * The schema-registry subjects Baton owns and the schema each must hold: {@code <topic>-value} of
 * each of its topics. Baton registers them itself, on first use; a foreign schema registered there
 * first (over the REST API, say) would make Baton's registration fail as incompatible, and the
 * dispatch that needed it with it. The REST API refuses any other schema there ({@code 409}).
 *
 * <p>The morsel engine's exchange topics ({@code baton.exchange.<job>}) are Baton's too, but their
 * values are not Avro: raw partial aggregates (see docs/protocol.md). Their value subjects hold no
 * schema, and the REST API refuses every registration there, so no tool is led to read them as Avro.
 */
public final class BatonSubjects {

    private static final String VALUE = "-value";

    private BatonSubjects() {
    }

    /** The schema {@code subject} must hold if it is Baton's; empty for a subject Baton does not own. */
    public static Optional<Schema> schemaOf(String subject) {
        if (subject == null || !subject.endsWith(VALUE)) {
            return Optional.empty();
        }
        String topic = subject.substring(0, subject.length() - VALUE.length());
        if (topic.startsWith(BatonTopics.TASKS_PREFIX)) {
            return Optional.of(ActivityTask.getClassSchema());
        }
        return Optional.ofNullable(switch (topic) {
            case BatonTopics.DISPATCH -> DispatchCommand.getClassSchema();
            case BatonTopics.WORKER_EVENTS -> WorkerEvent.getClassSchema();
            case BatonTopics.WORKER_CONTROL -> WorkerControl.getClassSchema();
            case BatonTopics.WORKERS -> WorkerStatus.getClassSchema();
            case BatonTopics.RESULTS -> Outcome.getClassSchema();
            case BatonTopics.HISTORY -> HistoryEvent.getClassSchema();
            case BatonTopics.DLQ -> DeadLetter.getClassSchema();
            default -> null;
        });
    }

    public static boolean isBatons(String subject) {
        return schemaOf(subject).isPresent() || isExchange(subject);
    }

    /** Whether {@code subject} is the value subject of an engine exchange topic: Baton's, and schema-less. */
    public static boolean isExchange(String subject) {
        return subject != null && subject.endsWith(VALUE) && subject.startsWith(BatonTopics.EXCHANGE_PREFIX);
    }

    /**
     * Why {@code schema} may not be registered under {@code subject}, or empty when it may: always for
     * a subject that is not Baton's; never under an exchange subject; under one of Baton's only a schema of Baton's record (the same
     * full name) that Baton's own schema can read, so that Baton's registration after it still
     * succeeds. That admits the exact schema in any text (what Confluent serializers in other languages
     * register from the published {@code .avsc} files) and earlier releases of it, and refuses a squat.
     */
    public static Optional<String> refusal(String subject, Schema schema) {
        if (isExchange(subject)) {
            return Optional.of("subject '" + subject + "' is Baton's: the morsel engine's exchange, whose values are raw partial "
                    + "aggregates, not Avro; no schema may be registered there (register yours under subjects of your own topics)");
        }
        Optional<Schema> batons = schemaOf(subject);
        if (batons.isEmpty()) {
            return Optional.empty();
        }
        Schema own = batons.get();
        String must = "subject '" + subject + "' is Baton's: it must hold " + own.getFullName();
        if (schema.getType() != Schema.Type.RECORD || !own.getFullName().equals(schema.getFullName())) {
            return Optional.of(must + " (the schema in schemas/src/main/avro), not " + schema.getFullName()
                    + "; register other schemas under subjects of your own topics");
        }
        SchemaCompatibility.SchemaPairCompatibility readable = SchemaCompatibility.checkReaderWriterCompatibility(own, schema);
        if (readable.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
            return Optional.of(must + " in a version Baton's own schema can read; this one it cannot: " + readable.getDescription());
        }
        return Optional.empty();
    }
}
