package dev.baton.streams.state;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

import dev.baton.events.store.SiteState;
import dev.baton.events.store.SiteStatus;
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
 * The {@code sites} store: site → {@link SiteState}. Every write goes through this class (one instance
 * per task, created in the processor's {@code init}, so a revived task starts empty), so what it keeps
 * in memory never disagrees with the store.
 *
 * <p>Writes are staged: {@link #put} and {@link #delete} take effect for later reads at once but
 * reach the store only at {@link #commitStep()}, and {@link #abortStep()} forgets them. The
 * processor commits after each input record or fired deadline and aborts when deciding throws, so
 * a step that fails half-way leaves no half-made site behind (a resolved row whose outcome was
 * never emitted, say). A row is encoded, and written, as it is at {@link #commitStep()}.
 *
 * <p>The last rows written that still wait for a worker's report (not resolved) are also kept
 * decoded, so that report's step does not decode the row it reads (docs/decisions.md, issue 29).
 * {@link #get} hands such a row out once and forgets it: the caller may change it, and only a row
 * it {@linkplain #put puts} back, committed, is kept again. A row that was not put, or whose step
 * was aborted, is decoded from its bytes at its next read, as every row was before.
 */
public final class SiteStore {

    private static final Logger log = LoggerFactory.getLogger(SiteStore.class);
    /**
     * Decoded rows kept per task: more than the sites a task has waiting for their report at tens of
     * thousands of activities a second, few enough that they die young (resolved rows are not kept).
     */
    static final int LIVE_ROWS = 1024;

    /** Marks a staged delete. */
    private static final SiteState DELETED = new SiteState();

    private final KeyValueStore<Bytes, byte[]> store;
    /** This step's writes, in order; {@link #DELETED} marks a delete. Encoded at {@link #commitStep()}. */
    private final Map<Bytes, SiteState> staged = new LinkedHashMap<>();
    /** The staged rows' encodings, in order, while {@link #commitStep()} writes them. */
    private final List<byte[]> encoded = new ArrayList<>();
    private final EventSerde<SiteState> serde;
    private StepInput input = StepInput.NONE;
    /** Committed rows not resolved, decoded, each equal to the bytes the store holds for it; see the class comment. */
    private final Map<Bytes, SiteState> live = new LinkedHashMap<>(LIVE_ROWS * 4 / 3 + 1) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Bytes, SiteState> eldest) {
            return size() > LIVE_ROWS;
        }
    };

    public SiteStore(KeyValueStore<Bytes, byte[]> store, EventSerde<SiteState> serde) {
        this.store = store;
        this.serde = serde;
    }

    public Optional<SiteState> get(SiteKey site) {
        Bytes key = Bytes.wrap(site.toBytes());
        SiteState written = staged.get(key);
        if (written == DELETED) {
            return Optional.empty();
        }
        if (written != null) {
            // Read again in the step that wrote it (rare): a copy, as a decoded row always was.
            return Optional.of(decode(serde.encode(TopologyNames.SITES_SUBJECT_TOPIC, written)));
        }
        SiteState kept = live.remove(key);
        if (kept != null) {
            return Optional.of(kept);
        }
        byte[] bytes = store.get(key);
        return bytes == null ? Optional.empty() : Optional.of(decode(bytes));
    }

    private SiteState decode(byte[] bytes) {
        return serde.decode(TopologyNames.SITES_SUBJECT_TOPIC, bytes);
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
        staged.put(Bytes.wrap(site.toBytes()), state);
    }

    public void delete(SiteKey site) {
        staged.put(Bytes.wrap(site.toBytes()), DELETED);
    }

    /**
     * Writes this step's puts and deletes to the store. Every row is encoded first, so a row that
     * cannot be encoded fails the step before anything is written (the caller then aborts it).
     */
    public void commitStep() {
        encoded.clear();
        for (SiteState row : staged.values()) {
            encoded.add(row == DELETED ? null : serde.encode(TopologyNames.SITES_SUBJECT_TOPIC, row));
        }
        int i = 0;
        for (Map.Entry<Bytes, SiteState> write : staged.entrySet()) {
            byte[] bytes = encoded.get(i++);
            Bytes key = write.getKey();
            if (bytes == null) {
                store.delete(key);
                live.remove(key);
            } else {
                store.put(key, bytes);
                if (write.getValue().getState() == SiteStatus.RESOLVED || write.getValue().getState() == SiteStatus.REFUSED) {
                    live.remove(key);
                } else {
                    live.put(key, write.getValue());
                }
            }
        }
        encoded.clear();
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
                    state = decode(row.value);
                } catch (UndecodableRecordException e) {
                    log.error("sites row {} cannot be decoded; skipped: {}", Bytes.wrap(row.key.get()), e.getMessage());
                    continue;
                }
                visitor.accept(SiteKey.fromBytes(row.key.get()), state);
            }
        }
    }
}
