package dev.baton.streams.processor;

import dev.baton.events.WorkerStatus;
import dev.baton.schemas.EventSerde;
import dev.baton.streams.names.TopologyNames;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Keeps the global {@code workers} store equal to the compacted {@code baton.workers} topic. */
public final class WorkerCensusProcessor implements Processor<byte[], byte[], Void, Void> {

    private static final Logger log = LoggerFactory.getLogger(WorkerCensusProcessor.class);

    private final EventSerde<WorkerStatus> serde;
    private final CensusChanges changes;
    private KeyValueStore<Bytes, byte[]> store;
    private ProcessorContext<Void, Void> context;

    public WorkerCensusProcessor(EventSerde<WorkerStatus> serde, CensusChanges changes) {
        this.serde = serde;
        this.changes = changes;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        store = context.getStateStore(TopologyNames.WORKERS_STORE);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        if (record.key() == null) {
            return;
        }
        Bytes key = Bytes.wrap(record.key());
        if (record.value() == null) {
            store.delete(key);
            changes.changed();
            return;
        }
        try {
            WorkerStatus status = serde.decode(BatonTopics.WORKERS, record.value());
            store.put(key, seenNoLaterThanNow(status, record.value()));
            changes.changed();
        } catch (RuntimeException e) {
            // Undecodable, or worse (a poisoned schema): every role may write here, and the global
            // thread that dies on one record takes the whole app with it. A live worker registers again.
            log.warn("ignoring a worker registration that cannot be read: {}", e.toString());
        }
    }

    /**
     * A registration claiming to be seen in the future would never go stale: the census would count
     * it live forever. It counts as seen now, so a worker that stops refreshing goes stale in time.
     */
    private byte[] seenNoLaterThanNow(WorkerStatus status, byte[] value) {
        long now = context.currentSystemTimeMs();
        if (status.getLastSeenMillis() <= now) {
            return value;
        }
        status.setLastSeenMillis(now);
        return serde.encode(BatonTopics.WORKERS, status);
    }
}
