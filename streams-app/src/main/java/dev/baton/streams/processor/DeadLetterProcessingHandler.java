package dev.baton.streams.processor;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.baton.events.DeadLetter;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.schemas.DeadLetters;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.streams.config.StreamsAppConfig;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last line of defence when a processor throws on a record. {@code SiteProcessor} already turns a
 * failed decision into a dropped step and a dead letter; this handler catches what escapes it (a dead
 * letter that could not be written, a bug outside the rules): the raw record goes to
 * {@code baton.dlq} with the exception, in the same transaction, and processing resumes. Without it
 * the stream thread would die, be replaced, re-read the same record and die again: one poison record
 * would stop every site of its partition.
 *
 * <p>A dispatch request that names a reply key also gets an answer, in the same transaction: a
 * failed {@code Outcome}, {@code retryable:}, naming the dead letter. Its caller would otherwise
 * wait forever for a decision that will never come.
 */
public final class DeadLetterProcessingHandler implements ProcessingExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(DeadLetterProcessingHandler.class);

    private DeadLetters deadLetters;
    private EventSerde<DispatchCommand> dispatches;
    private EventSerde<Outcome> outcomes;
    private EventSerde<HistoryEvent> history;
    private Clock clock;

    @Override
    public void configure(Map<String, ?> configs) {
        Map<String, Object> client = new HashMap<>(configs);
        Object url = configs.get(StreamsAppConfig.SCHEMA_REGISTRY_URL_CONFIG);
        SchemaRegistry registry = SchemaRegistry.forUrl(url == null ? "kafka://" : url.toString(), client);
        clock = Clock.systemUTC();
        deadLetters = new DeadLetters(EventSerde.of(DeadLetter.class, registry), "streams-app", clock);
        dispatches = EventSerde.of(DispatchCommand.class, registry);
        outcomes = EventSerde.of(Outcome.class, registry);
        history = EventSerde.of(HistoryEvent.class, registry);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
        log.error("task {}: processing {}-{}@{} failed; dead-lettering the record and going on", context.taskId(), context.topic(),
                context.partition(), context.offset(), exception);
        ProducerRecord<byte[], byte[]> letter = deadLetters.deadLetter(context.topic(), context.partition(), context.offset(),
                context.sourceRawKey(), context.sourceRawValue(), "processing failed in " + context.processorNodeId() + ": " + exception);
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(List.of(letter));
        out.addAll(answerToCaller(context, exception));
        return Response.resume(out);
    }

    /** The failed outcome for a dispatch's caller and its history event; nothing for anything else. */
    private List<ProducerRecord<byte[], byte[]>> answerToCaller(ErrorHandlerContext context, Exception exception) {
        if (!BatonTopics.DISPATCH.equals(context.topic()) || context.sourceRawValue() == null) {
            return List.of(); // a worker report that hit a bug is found later as a transport loss
        }
        DispatchCommand cmd;
        try {
            cmd = dispatches.decode(BatonTopics.DISPATCH, context.sourceRawValue());
        } catch (RuntimeException e) { // UndecodableRecordException or worse: no reply key to answer
            return List.of();
        }
        if (cmd.getKind() != DispatchKind.REQUESTED || cmd.getReplyKey() == null || !InputValidator.answerable(cmd)) {
            return List.of();
        }
        Outcome outcome = DispatchAnswers.internalError(cmd.getSite(), cmd, context.topic() + "-" + context.partition() + "@"
                + context.offset(), exception, clock.millis());
        HistoryEvent event = DispatchAnswers.history(cmd.getSite(), cmd, HistoryKind.INTERNAL_ERROR, outcome.getReason(), clock.millis());
        return List.of(new ProducerRecord<>(BatonTopics.RESULTS, cmd.getReplyKey().getBytes(StandardCharsets.UTF_8),
                        outcomes.encode(BatonTopics.RESULTS, outcome)),
                new ProducerRecord<>(BatonTopics.HISTORY, SiteKey.of(cmd.getSite()).toBytes(), history.encode(BatonTopics.HISTORY, event)));
    }
}
