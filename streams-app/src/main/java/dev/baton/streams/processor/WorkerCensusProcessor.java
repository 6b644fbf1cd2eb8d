package dev.baton.streams.processor;

import dev.baton.events.WorkerStatus;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.streams.topology.TopologyNames;
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

    public WorkerCensusProcessor(EventSerde<WorkerStatus> serde, CensusChanges changes) {
        this.serde = serde;
        this.changes = changes;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
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
            serde.decode(BatonTopics.WORKERS, record.value());
            store.put(key, record.value());
            changes.changed();
        } catch (UndecodableRecordException e) {
            log.warn("ignoring an undecodable worker registration: {}", e.getMessage());
        }
    }
}
