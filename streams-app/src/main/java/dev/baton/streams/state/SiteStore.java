package dev.baton.streams.state;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

import dev.baton.events.store.SiteState;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.UndecodableRecordException;
import dev.baton.streams.names.TopologyNames;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code sites} store: site → {@link SiteState}, with the rows this task wrote last kept in
 * memory. A site's row is read back milliseconds after it is written (dispatched, then leased, then
 * completed), and two of every activity's three reads came from RocksDB's memtable through JNI.
 * Every write goes through this class (one instance per task, created in the processor's
 * {@code init}, so a revived task starts empty), so the copy never disagrees with the store.
 *
 * <p>Writes are staged: {@link #put} and {@link #delete} take effect for later reads at once but
 * reach the store only at {@link #commitStep()}, and {@link #abortStep()} forgets them. The
 * processor commits after each input record or fired deadline and aborts when deciding throws, so
 * a step that fails half-way leaves no half-made site behind (a resolved row whose outcome was
 * never emitted, say).
 */
public final class SiteStore {

    private static final Logger log = LoggerFactory.getLogger(SiteStore.class);
    /** Rows kept per task: more than a task writes while its sites are dispatched, leased and done. */
    static final int RECENT_ROWS = 8192;

    private static final byte[] DELETED = new byte[0];

    private final KeyValueStore<Bytes, byte[]> store;
    /** This step's writes, in order; {@link #DELETED} marks a delete. */
    private final Map<Bytes, byte[]> staged = new LinkedHashMap<>();
    private final EventSerde<SiteState> serde;
    private StepInput input = StepInput.NONE;
    private final Map<Bytes, byte[]> recent = new LinkedHashMap<>(RECENT_ROWS * 4 / 3 + 1) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Bytes, byte[]> eldest) {
            return size() > RECENT_ROWS;
        }
    };

    public SiteStore(KeyValueStore<Bytes, byte[]> store, EventSerde<SiteState> serde) {
        this.store = store;
        this.serde = serde;
    }

    public Optional<SiteState> get(SiteKey site) {
        Bytes key = Bytes.wrap(site.toBytes());
        byte[] bytes = staged.get(key);
        if (bytes == DELETED) {
            return Optional.empty();
        }
        if (bytes == null) {
            bytes = recent.get(key);
        }
        if (bytes == null) {
            bytes = store.get(key);
        }
        return bytes == null ? Optional.empty() : Optional.of(serde.decode(TopologyNames.SITES_SUBJECT_TOPIC, bytes));
    }

    /** The record this step decides; every row the step writes is stamped with its offset. */
    public void beginStep(StepInput input) {
        this.input = input;
    }

    public StepInput stepInput() {
        return input;
    }

    /**
     * Whether the row already holds this step's record: a record at or below the offset stamped on
     * the row for its topic was applied before (the state was restored ahead of the committed input,
     * which at-least-once processing allows). Never true under exactly-once.
     */
    public boolean alreadyApplied(SiteState state) {
        return switch (input.source()) {
            case DISPATCH -> input.offset() <= state.getDispatchOffset();
            case WORKER_EVENTS -> input.offset() <= state.getEventsOffset();
            case NONE -> false;
        };
    }

    public void put(SiteKey site, SiteState state) {
        switch (input.source()) {
            case DISPATCH -> state.setDispatchOffset(Math.max(state.getDispatchOffset(), input.offset()));
            case WORKER_EVENTS -> state.setEventsOffset(Math.max(state.getEventsOffset(), input.offset()));
            case NONE -> { }
        }
        staged.put(Bytes.wrap(site.toBytes()), serde.encode(TopologyNames.SITES_SUBJECT_TOPIC, state));
    }

    public void delete(SiteKey site) {
        staged.put(Bytes.wrap(site.toBytes()), DELETED);
    }

    /** Writes this step's puts and deletes to the store. */
    public void commitStep() {
        for (Map.Entry<Bytes, byte[]> write : staged.entrySet()) {
            if (write.getValue() == DELETED) {
                store.delete(write.getKey());
                recent.remove(write.getKey());
            } else {
                store.put(write.getKey(), write.getValue());
                recent.put(write.getKey(), write.getValue());
            }
        }
        staged.clear();
        input = StepInput.NONE;
    }

    /** Forgets this step's writes. */
    public void abortStep() {
        staged.clear();
        input = StepInput.NONE;
    }

    /** Visits every committed row, in key order. A row that cannot be decoded is logged and skipped, not fatal. */
    public void forEach(BiConsumer<SiteKey, SiteState> visitor) {
        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> row = it.next();
                SiteState state;
                try {
                    state = serde.decode(TopologyNames.SITES_SUBJECT_TOPIC, row.value);
                } catch (UndecodableRecordException e) {
                    log.error("sites row {} cannot be decoded; skipped: {}", Bytes.wrap(row.key.get()), e.getMessage());
                    continue;
                }
                visitor.accept(SiteKey.fromBytes(row.key.get()), state);
            }
        }
    }
}
