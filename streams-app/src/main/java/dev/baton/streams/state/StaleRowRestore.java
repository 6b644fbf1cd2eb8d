package dev.baton.streams.state;

import java.io.File;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At-least-once: a restore of the {@code sites} store (a restart, a migration, a standby keeping up) that skips a
 * changelog record holding a row older than the one already restored for its key.
 *
 * <p>Why: at-least-once has no fencing. An instance whose JVM was paused past its group session (kill -STOP, a frozen
 * VM) sends, once thawed, what its producer still held and what it decides before it learns it lost its tasks; those
 * row writes land in the changelog after the new owner's writes for the same sites and hold the rows as they were
 * before. Kafka Streams restores the last write of each key, so the next restore brought back sites that had resolved
 * as live: a takeover then answered a caller already answered {@code completed} a second time, {@code superseded:}
 * (h/adv23x). A row stamps the offsets of the last {@code baton.dispatch} and {@code baton.worker-events} records that
 * wrote it, and a row's stamps never go down while it lives (each write keeps the larger), so a record whose stamps are
 * both at or below the restored row's, one of them below, was written from an older state and is skipped. Equal stamps
 * (a write with no input, or the same step written twice) restore as before, last one wins; so do tombstones, and rows
 * that cannot be read.
 */
public final class StaleRowRestore {

    private static final Logger log = LoggerFactory.getLogger(StaleRowRestore.class);

    /** The stamps of a row's bytes: {dispatchOffset, eventsOffset}, or null when they cannot be read. */
    @FunctionalInterface
    public interface RowStamps {
        long[] of(byte[] row);
    }

    private StaleRowRestore() {
    }

    /** {@code context}, whose restore callbacks skip the stale rows {@code store} (where they are restored) is ahead of. */
    static StateStoreContext context(StateStoreContext context, KeyValueStore<Bytes, byte[]> store, RowStamps stamps) {
        return new FilteringContext(context, store, stamps);
    }

    /** Whether a row stamped {@code next} was written from an older state than one stamped {@code held}. */
    static boolean older(long[] next, long[] held) {
        return next[0] <= held[0] && next[1] <= held[1] && (next[0] < held[0] || next[1] < held[1]);
    }

    /** {@code inner}, skipping the stale rows of each batch; {@code restored} reads the row restored so far for a key. */
    static RecordBatchingStateRestoreCallback filtering(RecordBatchingStateRestoreCallback inner, Function<Bytes, byte[]> restored,
                                                        RowStamps stamps, String name) {
        return new FilteringCallback(inner, restored, stamps, name);
    }

    private record FilteringCallback(RecordBatchingStateRestoreCallback inner, Function<Bytes, byte[]> restored, RowStamps stamps,
                                     String name) implements RecordBatchingStateRestoreCallback {
        @Override
        public void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
            List<ConsumerRecord<byte[], byte[]>> kept = new ArrayList<>(records.size());
            Map<Bytes, long[]> batch = new HashMap<>();
            ConsumerRecord<byte[], byte[]> firstSkipped = null;
            for (ConsumerRecord<byte[], byte[]> r : records) {
                Bytes key = Bytes.wrap(r.key());
                if (r.value() == null) {
                    batch.put(key, null);
                    kept.add(r);
                    continue;
                }
                long[] next = stamps.of(r.value());
                long[] held = batch.containsKey(key) ? batch.get(key) : heldStamps(key);
                if (next != null && held != null && older(next, held)) {
                    firstSkipped = firstSkipped == null ? r : firstSkipped;
                    continue;
                }
                batch.put(key, next);
                kept.add(r);
            }
            if (firstSkipped != null) {
                log.warn("{}: {} changelog record(s), the first at {}-{}@{}, hold rows older than the ones restored for their sites: "
                                + "written by an instance that had lost the task (at-least-once has no fencing); skipped", name,
                        records.size() - kept.size(), firstSkipped.topic(), firstSkipped.partition(), firstSkipped.offset());
            }
            inner.restoreBatch(kept);
        }

        private long[] heldStamps(Bytes key) {
            byte[] held = restored.apply(key);
            return held == null ? null : stamps.of(held);
        }
    }

    /** Passes everything through, except that a batching restore callback is registered under a {@link FilteringCallback}. */
    private record FilteringContext(StateStoreContext inner, KeyValueStore<Bytes, byte[]> store, RowStamps stamps) implements StateStoreContext {

        private StateRestoreCallback filtered(StateStore registered, StateRestoreCallback callback) {
            return callback instanceof RecordBatchingStateRestoreCallback batching
                    ? new FilteringCallback(batching, store::get, stamps, registered.name())
                    : callback;
        }

        @Override
        public void register(StateStore registered, StateRestoreCallback callback) {
            inner.register(registered, filtered(registered, callback));
        }

        @Override
        public void register(StateStore registered, StateRestoreCallback callback, CommitCallback checkpoint) {
            inner.register(registered, filtered(registered, callback), checkpoint);
        }

        @Override
        public String applicationId() {
            return inner.applicationId();
        }

        @Override
        public TaskId taskId() {
            return inner.taskId();
        }

        @Override
        public Optional<RecordMetadata> recordMetadata() {
            return inner.recordMetadata();
        }

        @Override
        public Serde<?> keySerde() {
            return inner.keySerde();
        }

        @Override
        public Serde<?> valueSerde() {
            return inner.valueSerde();
        }

        @Override
        public File stateDir() {
            return inner.stateDir();
        }

        @Override
        public StreamsMetrics metrics() {
            return inner.metrics();
        }

        @Override
        public Map<String, Object> appConfigs() {
            return inner.appConfigs();
        }

        @Override
        public Map<String, Object> appConfigsWithPrefix(String prefix) {
            return inner.appConfigsWithPrefix(prefix);
        }
    }
}
