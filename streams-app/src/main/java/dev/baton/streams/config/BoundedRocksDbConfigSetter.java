package dev.baton.streams.config;

import java.util.Map;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * Bounds RocksDB memory for the whole instance: one block cache and one write buffer manager shared
 * by every store, with memtables charged to the cache. Without it each store of each task gets its
 * own cache and memtables, and memory grows with the partition count.
 */
public final class BoundedRocksDbConfigSetter implements RocksDBConfigSetter {

    static final String BLOCK_CACHE_BYTES = "baton.rocksdb.block.cache.bytes";
    static final String WRITE_BUFFER_BYTES = "baton.rocksdb.write.buffer.bytes";

    private static Cache cache;
    private static WriteBufferManager writeBufferManager;

    private static synchronized void init(long cacheBytes, long writeBufferBytes) {
        if (cache == null) {
            // One shard, not RocksDB's default of up to 64: memtables are charged to this cache in
            // pinned 256 KiB entries, and a 1 MiB shard holding a few of them had no room left for a
            // table's filter block, which was then read from its file on every lookup (7.5% of the
            // stream thread). Only the stream threads look blocks up, so one lock is no contention.
            cache = new LRUCache(cacheBytes, 0, false, 0.1);
            writeBufferManager = new WriteBufferManager(writeBufferBytes, cache);
        }
    }

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        init(longOf(configs.get(BLOCK_CACHE_BYTES), 192L << 20), longOf(configs.get(WRITE_BUFFER_BYTES), 128L << 20));
        BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        table.setBlockCache(cache);
        table.setCacheIndexAndFilterBlocks(true);
        table.setPinL0FilterAndIndexBlocksInCache(true);
        options.setWriteBufferManager(writeBufferManager);
        options.setTableFormatConfig(table);
        options.setMaxWriteBufferNumber(2);
        // Kafka Streams turns this on, which leaves the last level (most of the data) without bloom
        // filters: right for stores whose reads mostly hit. Every dispatch of a new site reads a key
        // that is absent, and without a filter that read fetches an index and a data block from each
        // file it could be in (two thirds of the stream thread's RocksDB reads in a profile).
        options.setOptimizeFiltersForHits(false);
    }

    @Override
    public void close(String storeName, Options options) {
        // The cache and write buffer manager are shared by every store; they live as long as the JVM.
    }

    private static long longOf(Object value, long fallback) {
        if (value == null) {
            return fallback;
        }
        return value instanceof Number n ? n.longValue() : Long.parseLong(value.toString());
    }
}
