package dev.baton.streams.config;

import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.baton.events.DeadLetter;
import dev.baton.schemas.DeadLetters;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a processor throws on a record (a bug, not bad input — bad input is dead-lettered inside the
 * processor), the raw record goes to {@code baton.dlq} with the exception, in the same transaction,
 * and processing resumes. Without it the stream thread would die, be replaced, re-read the same
 * record and die again: one poison record would stop every site of its partition.
 *
 * <p>Trade-off, recorded in docs/decisions.md: store writes the processor made before it threw are
 * committed with the dead letter. The processor validates before it writes, so a throw after a
 * write means a bug that the dead letter and the ERROR log make visible.
 */
public final class DeadLetterProcessingHandler implements ProcessingExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(DeadLetterProcessingHandler.class);

    private DeadLetters deadLetters;

    @Override
    public void configure(Map<String, ?> configs) {
        Map<String, Object> client = new HashMap<>(configs);
        Object url = configs.get(StreamsAppConfig.SCHEMA_REGISTRY_URL_CONFIG);
        SchemaRegistry registry = SchemaRegistry.forUrl(url == null ? "kafka://" : url.toString(), client);
        deadLetters = new DeadLetters(EventSerde.of(DeadLetter.class, registry), "streams-app", Clock.systemUTC());
    }

    @Override
    public Response handleError(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
        log.error("task {}: processing {}-{}@{} failed; dead-lettering the record and going on", context.taskId(), context.topic(),
                context.partition(), context.offset(), exception);
        ProducerRecord<byte[], byte[]> letter = deadLetters.deadLetter(context.topic(), context.partition(), context.offset(),
                context.sourceRawKey(), context.sourceRawValue(), "processing failed in " + context.processorNodeId() + ": " + exception);
        return Response.resume(List.of(letter));
    }
}
