package dev.baton.streams.config;

import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import dev.baton.events.RetryPolicy;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Configuration of the streams app. Baton's own keys are defined here; every other key (Kafka
 * client security, {@code num.standby.replicas}, ...) passes through to {@link StreamsConfig}.
 */
public final class StreamsAppConfig extends AbstractConfig {

    /** The streams producer's max.block.ms under exactly-once: how long an outage a commit rides out (see streamsProperties). */
    static final long EXACTLY_ONCE_MAX_BLOCK_MS = 600_000L;
    /** The largest changelog record (a site's row) the app's changelogs and producer take: room for two payloads and their details. */
    public static final int CHANGELOG_RECORD_MAX_BYTES = 4 * 1024 * 1024;

    public static final String APPLICATION_ID_CONFIG = StreamsConfig.APPLICATION_ID_CONFIG;
    private static final String APPLICATION_ID_DOC = "Kafka Streams application id; instances with the same id share the sites.";

    public static final String BOOTSTRAP_SERVERS_CONFIG = StreamsConfig.BOOTSTRAP_SERVERS_CONFIG;
    private static final String BOOTSTRAP_SERVERS_DOC = "Kafka bootstrap servers.";

    public static final String SCHEMA_REGISTRY_URL_CONFIG = "schema.registry.url";
    private static final String SCHEMA_REGISTRY_URL_DOC = "http(s):// for a Confluent-compatible registry, kafka:// for the _baton_schemas topic on this cluster, mem:// for tests.";

    public static final String STATE_DIR_CONFIG = StreamsConfig.STATE_DIR_CONFIG;
    private static final String STATE_DIR_DOC = "Directory of the RocksDB stores.";

    public static final String NUM_STREAM_THREADS_CONFIG = StreamsConfig.NUM_STREAM_THREADS_CONFIG;
    private static final String NUM_STREAM_THREADS_DOC = "Stream threads per instance; sites spread over them by partition. One "
            + "thread commits as soon as its input is drained and batches under load by itself; a second one on 2 cores measured "
            + "slower at light load (more, smaller commits) and no faster at the top.";

    public static final String COMMIT_PACING_CONFIG = "commit.pacing";
    private static final String COMMIT_PACING_DOC = "How the stream threads time their exactly-once commits. 'drained' (the default): "
            + "a commit as soon as a stream thread has processed everything its last poll returned and that poll was not full, at "
            + "least 10 ms after its last commit ended and at the latest commit.interval.ms after it: at light load small commits "
            + "at once, so an activity waits for no timer; under load polls come back full and the interval paces large commits, "
            + "so throughput is that of long intervals. 'interval': Kafka Streams' own timer, commit.interval.ms after the last "
            + "commit ended (with 10 ms, the former 'latency' profile). Under at-least-once Kafka Streams' timer always paces the "
            + "commits: no answer waits for one.";

    public static final String COMMIT_INTERVAL_MS_CONFIG = StreamsConfig.COMMIT_INTERVAL_MS_CONFIG;
    private static final String COMMIT_INTERVAL_MS_DOC = "The longest wait from the end of one commit to the next while anything "
            + "is uncommitted (with commit.pacing=drained, the pace under a backlog; with interval, every commit's). Each commit "
            + "stops the stream thread for a flush and two transaction round trips (~4-5 ms on 2 cores at 2,000/s), so a longer "
            + "interval buys throughput under load. Under at-least-once it bounds what a crash reads again (Kafka Streams' own "
            + "default is 30 s).";

    public static final String DEDUPE_WINDOW_MS_CONFIG = "dedupe.window.ms";
    private static final String DEDUPE_WINDOW_MS_DOC = "How long a resolved site is kept so a repeated dispatch gets the stored outcome instead of running again.";

    public static final String TIMER_RESOLUTION_MS_CONFIG = "timer.resolution.ms";
    private static final String TIMER_RESOLUTION_MS_DOC = "How often the wall-clock punctuator scans the deadlines store.";

    public static final String MAX_PAYLOAD_BYTES_CONFIG = "max.payload.bytes";
    private static final String MAX_PAYLOAD_BYTES_DOC = "Largest activity input or output accepted; larger dispatches are refused and "
            + "dead-lettered. At most 983040 (960 KiB): a site's row and its task carry the payload with up to 64 KiB of other fields, "
            + "and each must fit Kafka's default 1 MiB max.request.size.";

    public static final String HEARTBEAT_WINDOW_MS_CONFIG = "heartbeat.window.ms";
    private static final String HEARTBEAT_WINDOW_MS_DOC = "Heartbeat window of activities that set none: a lease silent for longer is a transport loss. Workers heartbeat every window/3.";

    public static final String TRANSPORT_LOSS_BUDGET_CONFIG = "transport.loss.budget";
    private static final String TRANSPORT_LOSS_BUDGET_DOC = "Re-deliveries of one attempt after transport losses before it fails transport-exhausted:. "
            + "With the heartbeat window W, a site whose workers keep dying fails after about (budget + 1) x W.";

    public static final String WORKER_STALE_MS_CONFIG = "worker.stale.ms";
    private static final String WORKER_STALE_MS_DOC = "A worker whose registration is older than this no longer counts in the census (workers refresh every 5 s by default).";

    public static final String RETRY_INITIAL_INTERVAL_MS_CONFIG = "retry.initial.interval.ms";
    public static final String RETRY_BACKOFF_COEFFICIENT_CONFIG = "retry.backoff.coefficient";
    public static final String RETRY_MAX_INTERVAL_MS_CONFIG = "retry.max.interval.ms";
    public static final String RETRY_MAX_ATTEMPTS_CONFIG = "retry.max.attempts";
    public static final String RETRY_NON_RETRYABLE_PREFIXES_CONFIG = "retry.non.retryable.prefixes";

    public static final String STATUS_PORT_CONFIG = "status.port";
    private static final String STATUS_PORT_DOC = "Serve the query API (GET /status, /sites, /sites/<site key>, answered for every instance), /health "
            + "and /ready on this port; 0 = off. baton streams-app serves them on its --metrics-port instead.";

    public static final String STATUS_ADVERTISED_HOST_CONFIG = "status.advertised.host";
    private static final String STATUS_ADVERTISED_HOST_DOC = "The host other instances reach this one's status.port at: with it, "
            + "application.server defaults to status.advertised.host:status.port, so every instance answers site lookups and "
            + "status for all (Kafka Streams interactive queries). Set it to a name the other instances resolve.";

    public static final String SCHEMA_REGISTRY_REST_PORT_CONFIG = "schema.registry.rest.port";
    private static final String SCHEMA_REGISTRY_REST_PORT_DOC = "With a kafka:// schema.registry.url: serve the Confluent Schema Registry "
            + "REST API over _baton_schemas on this port (8081 is Confluent's), so Confluent serializers in any language can use it; 0 = off. "
            + "A port already taken is logged and skipped: every instance serves the same ids.";

    public static final String QUEUE_REFRESH_MS_CONFIG = "queue.refresh.ms";
    private static final String QUEUE_REFRESH_MS_DOC = "How often the list of declared queues (task topics) and their lag (baton_queue_lag) are refreshed.";

    public static final String ROCKSDB_BLOCK_CACHE_BYTES_CONFIG = "rocksdb.block.cache.bytes";
    private static final String ROCKSDB_BLOCK_CACHE_BYTES_DOC = "Block cache shared by every RocksDB store of the instance; the memtables are charged to it, so it bounds RocksDB's memory (off the heap).";

    public static final String ROCKSDB_WRITE_BUFFER_BYTES_CONFIG = "rocksdb.write.buffer.bytes";
    private static final String ROCKSDB_WRITE_BUFFER_BYTES_DOC = "Memtable memory shared by every store, charged to the block cache (write buffer manager). Smaller means smaller, more frequent flushes "
            + "and more compaction CPU per activity (docs/decisions.md, issue 29).";

    public static final String HANGING_TRANSACTION_CHECK_MS_CONFIG = "hanging.transaction.check.ms";
    private static final String HANGING_TRANSACTION_CHECK_MS_DOC = "How often to look for hanging transactions on Baton's partitions and __consumer_offsets "
            + "(open on a partition, finished for their coordinator) and abort them; 0 = never. Aborting needs ALTER on the cluster.";

    public static final String HANGING_TRANSACTION_MIN_AGE_MS_CONFIG = "hanging.transaction.min.age.ms";
    private static final String HANGING_TRANSACTION_MIN_AGE_MS_DOC = "A transaction is only taken for hanging once its last write is this old "
            + "(and twice its own timeout).";

    public static final String TRANSACTION_FENCE_AFTER_MS_CONFIG = "transaction.fence.after.ms";
    private static final String TRANSACTION_FENCE_AFTER_MS_DOC = "Exactly-once: a transaction of this app open longer than this (at least "
            + "three commit intervals) whose process has no member left in the group is a crashed instance's: it is fenced, so the "
            + "readers it holds back move on at once instead of at its coordinator's timeout; 0 = never. Nothing is fenced while a member's "
            + "process cannot be told (a custom client.id). Needs DESCRIBE on the group "
            + "and DESCRIBE and WRITE on the app's transactional ids.";

    public static final String PROCESSING_GUARANTEE_CONFIG = StreamsConfig.PROCESSING_GUARANTEE_CONFIG;
    private static final String PROCESSING_GUARANTEE_DOC = "exactly_once_v2 (default): a step's state, outputs and input offset commit "
            + "together; outputs become visible at the commit. at_least_once: outputs are visible as soon as they are written (lower "
            + "latency); after a crash the state may be ahead of the committed input and outputs may repeat, identically: see "
            + "docs/decisions.md, 'At-least-once'. Needs token.key.";

    public static final String TOKEN_KEY_CONFIG = "token.key";
    private static final String TOKEN_KEY_DOC = "Base64 of at least 16 random bytes, the same on every instance of the app (e.g. `openssl rand "
            + "-base64 32`): new sites' token secrets are derived from it and the dispatch record that created them, so a reprocessed "
            + "dispatch re-creates the secret of tokens already delivered. Required with processing.guarantee=at_least_once; "
            + "without it sites get random secrets.";

    public static final String TOKEN_KEY_ROTATE_CONFIG = "token.key.rotate";
    private static final String TOKEN_KEY_ROTATE_DOC = "Make this instance's token.key the one every instance of the application id "
            + "must use (the instances compare a fingerprint of it at start, in topic <application.id>-agreement, and one with "
            + "another key refuses to start). Refused while any instance of the application id is running: stop them all first.";

    public static final ConfigDef CONFIG = new ConfigDef()
            .define(APPLICATION_ID_CONFIG, Type.STRING, "baton-streams", Importance.HIGH, APPLICATION_ID_DOC)
            .define(BOOTSTRAP_SERVERS_CONFIG, Type.STRING, "localhost:9092", Importance.HIGH, BOOTSTRAP_SERVERS_DOC)
            .define(SCHEMA_REGISTRY_URL_CONFIG, Type.STRING, "kafka://", Importance.HIGH, SCHEMA_REGISTRY_URL_DOC)
            .define(STATE_DIR_CONFIG, Type.STRING, System.getProperty("java.io.tmpdir") + "/baton-streams", Importance.MEDIUM, STATE_DIR_DOC)
            .define(NUM_STREAM_THREADS_CONFIG, Type.INT, 1, Range.atLeast(1), Importance.MEDIUM, NUM_STREAM_THREADS_DOC)
            .define(COMMIT_INTERVAL_MS_CONFIG, Type.LONG, 100L, Range.atLeast(1), Importance.MEDIUM, COMMIT_INTERVAL_MS_DOC)
            .define(COMMIT_PACING_CONFIG, Type.STRING, CommitPacing.DRAINED.configName(),
                    ConfigDef.ValidString.in(CommitPacing.configNames()), Importance.MEDIUM, COMMIT_PACING_DOC)
            .define(DEDUPE_WINDOW_MS_CONFIG, Type.LONG, 3_600_000L, Range.atLeast(0), Importance.MEDIUM, DEDUPE_WINDOW_MS_DOC)
            .define(TIMER_RESOLUTION_MS_CONFIG, Type.LONG, 250L, Range.atLeast(1), Importance.LOW, TIMER_RESOLUTION_MS_DOC)
            .define(MAX_PAYLOAD_BYTES_CONFIG, Type.INT, 524_288, Range.between(0, 983_040), Importance.MEDIUM, MAX_PAYLOAD_BYTES_DOC)
            .define(HEARTBEAT_WINDOW_MS_CONFIG, Type.LONG, 30_000L, Range.atLeast(10), Importance.MEDIUM, HEARTBEAT_WINDOW_MS_DOC)
            .define(TRANSPORT_LOSS_BUDGET_CONFIG, Type.INT, 3, Range.atLeast(0), Importance.MEDIUM, TRANSPORT_LOSS_BUDGET_DOC)
            .define(WORKER_STALE_MS_CONFIG, Type.LONG, 15_000L, Range.atLeast(1), Importance.LOW, WORKER_STALE_MS_DOC)
            .define(RETRY_INITIAL_INTERVAL_MS_CONFIG, Type.LONG, 1_000L, Range.atLeast(1), Importance.MEDIUM,
                    "Default retry policy: backoff before the second attempt (activities may set their own policy).")
            .define(RETRY_BACKOFF_COEFFICIENT_CONFIG, Type.DOUBLE, 2.0, Range.atLeast(1.0), Importance.MEDIUM,
                    "Default retry policy: each backoff is the previous one times this.")
            .define(RETRY_MAX_INTERVAL_MS_CONFIG, Type.LONG, 60_000L, Range.atLeast(1), Importance.MEDIUM,
                    "Default retry policy: longest backoff.")
            .define(RETRY_MAX_ATTEMPTS_CONFIG, Type.INT, 3, Range.atLeast(0), Importance.MEDIUM,
                    "Default retry policy: attempts in all, the first included (0 = unlimited). Worker loss and parks never count.")
            .define(RETRY_NON_RETRYABLE_PREFIXES_CONFIG, Type.LIST, "", Importance.LOW,
                    "Default retry policy: failure reasons (after 'retryable: ') starting with any of these are not retried.")
            .define(STATUS_PORT_CONFIG, Type.INT, 0, Range.between(0, 65535), Importance.LOW, STATUS_PORT_DOC)
            .define(SCHEMA_REGISTRY_REST_PORT_CONFIG, Type.INT, 0, Range.between(0, 65535), Importance.LOW, SCHEMA_REGISTRY_REST_PORT_DOC)
            .define(STATUS_ADVERTISED_HOST_CONFIG, Type.STRING, "localhost", Importance.LOW, STATUS_ADVERTISED_HOST_DOC)
            .define(QUEUE_REFRESH_MS_CONFIG, Type.LONG, 5_000L, Range.atLeast(100), Importance.LOW, QUEUE_REFRESH_MS_DOC)
            .define(ROCKSDB_BLOCK_CACHE_BYTES_CONFIG, Type.LONG, 192L * 1024 * 1024, Range.atLeast(1024 * 1024), Importance.LOW, ROCKSDB_BLOCK_CACHE_BYTES_DOC)
            .define(ROCKSDB_WRITE_BUFFER_BYTES_CONFIG, Type.LONG, 128L * 1024 * 1024, Range.atLeast(1024 * 1024), Importance.LOW, ROCKSDB_WRITE_BUFFER_BYTES_DOC)
            .define(HANGING_TRANSACTION_CHECK_MS_CONFIG, Type.LONG, 10_000L, Range.atLeast(0), Importance.LOW, HANGING_TRANSACTION_CHECK_MS_DOC)
            .define(HANGING_TRANSACTION_MIN_AGE_MS_CONFIG, Type.LONG, 30_000L, Range.atLeast(0), Importance.LOW, HANGING_TRANSACTION_MIN_AGE_MS_DOC)
            .define(TRANSACTION_FENCE_AFTER_MS_CONFIG, Type.LONG, 3_000L, Range.atLeast(0), Importance.LOW, TRANSACTION_FENCE_AFTER_MS_DOC)
            .define(PROCESSING_GUARANTEE_CONFIG, Type.STRING, StreamsConfig.EXACTLY_ONCE_V2,
                    ConfigDef.ValidString.in(StreamsConfig.EXACTLY_ONCE_V2, StreamsConfig.AT_LEAST_ONCE), Importance.HIGH, PROCESSING_GUARANTEE_DOC)
            .define(TOKEN_KEY_CONFIG, Type.PASSWORD, null, Importance.HIGH, TOKEN_KEY_DOC)
            .define(TOKEN_KEY_ROTATE_CONFIG, Type.BOOLEAN, false, Importance.LOW, TOKEN_KEY_ROTATE_DOC);

    /**
     * The longest a stream thread's poll waits for input when Kafka Streams' timer paces the commits:
     * the commit check (and, under at-least-once, the punctuator that asks for deadline records) runs
     * once per poll loop, so a poll that waited out a long interval would hold them back.
     */
    private static final long INTERVAL_POLL_MS = 10;
    /**
     * The longest a stream thread's poll waits for input under drained commits. The wait is cut to what a drained
     * commit's gap has left while one waits for it (DrainSignallingConsumer), and records end it at once, so a longer
     * wait delays only the wall-clock punctuator (timer.resolution.ms, 250 by default) and spares an idle thread most of
     * its loops (docs/decisions.md, "What an idle streams app costs").
     */
    static final long DRAINED_POLL_MS = 50;
    /** The stream thread's fetch.max.wait.ms: see where it is set. */
    static final int IDLE_FETCH_WAIT_MS = 100;

    /** The key of the former latency, throughput and adaptive profiles, refused by name so a stale config says what to do. */
    static final String REMOVED_PROFILE_CONFIG = "profile";

    /** Shortest token key accepted, in bytes. */
    public static final int MIN_TOKEN_KEY_BYTES = 16;

    public StreamsAppConfig(Map<String, ?> originals) {
        super(CONFIG, originals, false);
        if (originals.containsKey(REMOVED_PROFILE_CONFIG)) {
            throw new ConfigException(REMOVED_PROFILE_CONFIG, originals.get(REMOVED_PROFILE_CONFIG), "profiles were removed: the default "
                    + "commit pacing serves light and heavy load alike. Delete the key; for the former 'latency' profile set "
                    + "commit.pacing=interval and commit.interval.ms=10, for 'throughput' commit.pacing=interval and num.stream.threads=2");
        }
        byte[] key = tokenKey();
        if (atLeastOnce() && key == null) {
            throw new ConfigException(TOKEN_KEY_CONFIG, null, "processing.guarantee=at_least_once needs " + TOKEN_KEY_CONFIG
                    + ": base64 of at least " + MIN_TOKEN_KEY_BYTES + " random bytes, the same on every instance (`openssl rand -base64 32`)");
        }
    }

    /**
     * The stream threads' group session: the main consumer's {@code session.timeout.ms} as Kafka Streams will read it
     * ({@code main.consumer.}, then {@code consumer.}, then unprefixed).
     */
    public long sessionTimeoutMs() {
        Properties p = streamsProperties();
        for (String key : List.of(StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG),
                StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG)) {
            Object v = p.get(key);
            if (v != null) {
                return Long.parseLong(String.valueOf(v).trim());
            }
        }
        return 45_000L;
    }

    public String processingGuarantee() {
        return getString(PROCESSING_GUARANTEE_CONFIG);
    }

    public boolean atLeastOnce() {
        return StreamsConfig.AT_LEAST_ONCE.equals(processingGuarantee());
    }

    /**
     * Whether the {@code sites} store sits behind Kafka Streams' record cache: exactly-once with
     * {@code statestore.cache.max.bytes} set above 0 (off by default; Kafka Streams builds every store
     * uncached at 0, whatever the store's builder asked for).
     */
    public boolean sitesCached() {
        Object bytes = streamsProperties().get(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG);
        return !atLeastOnce() && Long.parseLong(String.valueOf(bytes).trim()) > 0;
    }

    public boolean tokenKeyRotate() {
        return getBoolean(TOKEN_KEY_ROTATE_CONFIG);
    }

    /** The token key's bytes, or null when unset. */
    public byte[] tokenKey() {
        Password p = getPassword(TOKEN_KEY_CONFIG);
        if (p == null) {
            return null;
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(p.value().trim());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(TOKEN_KEY_CONFIG, "[hidden]", "not base64: " + e.getMessage());
        }
        if (key.length < MIN_TOKEN_KEY_BYTES) {
            throw new ConfigException(TOKEN_KEY_CONFIG, "[hidden]", "must hold at least " + MIN_TOKEN_KEY_BYTES + " bytes, was " + key.length);
        }
        return key;
    }

    /** Properties for {@code KafkaStreams}: exactly-once, latency-tuned producers, and every pass-through key. */
    public Properties streamsProperties() {
        Map<String, Object> p = new HashMap<>(originals());
        p.keySet().removeAll(CONFIG.names());
        p.keySet().removeIf(k -> k.startsWith(QueueTimeouts.PREFIX));
        p.put(APPLICATION_ID_CONFIG, getString(APPLICATION_ID_CONFIG));
        p.put(BOOTSTRAP_SERVERS_CONFIG, getString(BOOTSTRAP_SERVERS_CONFIG));
        p.put(STATE_DIR_CONFIG, getString(STATE_DIR_CONFIG));
        applicationServer().ifPresent(h -> p.put(StreamsConfig.APPLICATION_SERVER_CONFIG, h.host() + ":" + h.port()));
        p.put(NUM_STREAM_THREADS_CONFIG, streamThreads());
        p.put(COMMIT_INTERVAL_MS_CONFIG, commitIntervalMs());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, getString(PROCESSING_GUARANTEE_CONFIG));
        p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDbConfigSetter.class);
        p.put(BoundedRocksDbConfigSetter.BLOCK_CACHE_BYTES, getLong(ROCKSDB_BLOCK_CACHE_BYTES_CONFIG));
        p.put(BoundedRocksDbConfigSetter.WRITE_BUFFER_BYTES, getLong(ROCKSDB_WRITE_BUFFER_BYTES_CONFIG));
        // A transactional hop waits on "concurrent transactions" retries: 5 ms instead of 100 ms
        // cut p99 from ~240 ms to under 100 ms on this machine kind (see docs/decisions.md).
        p.putIfAbsent(StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG), 5);
        // A transaction's records become visible at its commit, never before, and the commit flushes
        // the producer: lingering adds no latency, and it turns a hop's many small produce requests
        // into one per commit (the broker's request handling is the largest CPU user here). Well past
        // the interval, not equal to it: a linger that expired just before the commit sent a request,
        // and with one request in flight the flush waited for it and then sent another (2.2 produce
        // requests per commit at 2,000/s, against 1.3 with ten intervals).
        // At-least-once: a record is visible once sent, so lingering is latency; 1 ms still batches a burst.
        p.putIfAbsent(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), atLeastOnce() ? 1 : 10 * commitIntervalMs());
        // A produce request carries one batch per partition, and a hop writes ~8 records per activity
        // into two dozen partitions: with the default 16 KiB batches the producer needed ~0.07 requests
        // per activity in a burst, with 128 KiB 0.027 (and ~5 us less CPU per activity in its thread).
        p.putIfAbsent(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), 128 * 1024);
        // With transactions v2 a retried first batch (CONCURRENT_TRANSACTIONS right after a commit)
        // let pipelined batches arrive first; the broker refused them as out of sequence and the
        // task was marked corrupted and re-initialized. One request in flight removes the race.
        p.putIfAbsent(StreamsConfig.producerPrefix(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION), 1);
        // Exactly-once: a commit that times out (the broker away past max.block.ms, 60 s by default) takes Kafka Streams
        // 4.4 down a path that wipes the tasks' stores and then marks them restored up to offsets they never held, so the
        // committed site rows are never restored and their callers never answered (h/adv26; docs/decisions.md, "Kafka
        // Streams loses restored state after a commit times out"). A commit that blocks instead ends fenced when the broker
        // is back, and that path restores in full. Ten minutes: past it the bug is reachable again.
        if (!atLeastOnce()) {
            p.putIfAbsent(StreamsConfig.producerPrefix(ProducerConfig.MAX_BLOCK_MS_CONFIG), EXACTLY_ONCE_MAX_BLOCK_MS);
        }
        // The stream thread's fetch waits at most 100 ms on a quiet input (Kafka's 500 would let a fetch held for the
        // quiet partitions delay, by that much, the next one for a partition whose buffered records were just taken: one
        // fetch is in flight per broker). Not less: at 10 ms an idle instance and its broker spent 0.38 of a core on 100
        // empty fetches a second (docs/decisions.md, "What an idle streams app costs"). Records that arrive end a waiting
        // fetch at once, so the wait costs no latency.
        p.putIfAbsent(StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), IDLE_FETCH_WAIT_MS);
        // A crashed instance's tasks move when its group session expires: Kafka's 45 s would leave every
        // site on them waiting that long. 6 s is the broker's smallest allowed session by default; the
        // heartbeats run on their own thread, so a long step does not end it (a stop-the-world pause or a starved
        // heartbeat thread of 6 s does, and the instance then rejoins).
        p.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000); // unprefixed, so a user's consumer./main.consumer. key wins
        p.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_500);
        // Its open transaction, which holds back the readers of what it wrote, is then fenced by the
        // AbandonedTransactionFencer rather than waited out (transaction.fence.after.ms; docs/decisions.md).
        // Off by default. Under exactly-once the sites store sits behind Kafka Streams' record cache, which
        // folds a row's writes between two commits into one changelog record (~0.9 fewer records per
        // activity), but the fold happens in the commit: on 2 cores each commit waited 5-8 ms to flush
        // instead of 2-3 and the p50 rose from 31 to 42-48 ms at 200/s (docs/decisions.md, "The sites
        // cache is off by default"). A user who wants the fold sets statestore.cache.max.bytes (32 MiB
        // holds 100 ms of dirty rows at 30,000 activities/s); under at-least-once the store is never cached.
        p.putIfAbsent(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);
        p.put(SCHEMA_REGISTRY_URL_CONFIG, schemaRegistryUrl()); // for the dead-letter handler (BatonStreamsApp names it)
        // A site's row may hold two payloads, a new run's input beside the replaced run's output (kept to answer that run's
        // late callers), and their details: ~1.2 MiB at the default max.payload.bytes, ~2.2 MiB at its largest. Over a
        // topic's default 1 MiB the changelog send failed and the stream thread died on the same dispatch again and again
        // (h/adv21). The changelogs Kafka Streams creates, and its producer, take records up to CHANGELOG_RECORD_MAX_BYTES;
        // an older changelog is raised at start (ChangelogLimits).
        p.putIfAbsent(StreamsConfig.topicPrefix(TopicConfig.MAX_MESSAGE_BYTES_CONFIG), CHANGELOG_RECORD_MAX_BYTES);
        p.putIfAbsent(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), CHANGELOG_RECORD_MAX_BYTES + 64 * 1024);
        // A record without a timestamp (-1) must not stop a stream thread: Kafka Streams' default extractor throws on it.
        p.putIfAbsent(StreamsConfig.DEFAULT_TIMESTAMP_EXTRACTOR_CLASS_CONFIG, InputTimestamps.class);
        // The commit check runs once per poll loop; a poll that blocks 100 ms (the default) waiting
        // for input holds back the commit, and so the visibility, of what was just processed.
        // Dispatches and worker events are independent streams: never hold a task back waiting to
        // interleave them by timestamp (the default idles a task whose other input looks empty).
        // Except under at-least-once, where a crash can lose a row's write while its outputs went out: the input read
        // again must come in its order, or the worker's completion, read before the dispatch it answers was fetched, is a
        // report for an unknown site, and the dispatch read after it runs the request again (a second outcome). 0 waits
        // only for input already on the brokers, so a caught-up task never idles.
        p.putIfAbsent(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, atLeastOnce() ? 0L : -1L);
        // Drained commits: a drain within the minimum gap of the last commit is committed by a punctuator,
        // which runs once per loop, so a poll() that waits for input must not outlast the gap by much (the
        // main consumer also cuts its wait to what the gap has left: DrainSignallingConsumer).
        p.putIfAbsent(StreamsConfig.POLL_MS_CONFIG, switch (commitPacing()) {
            case DRAINED -> DRAINED_POLL_MS;
            case INTERVAL -> Math.min(commitIntervalMs(), INTERVAL_POLL_MS);
        });
        Properties props = new Properties();
        props.putAll(p);
        return props;
    }

    public long commitIntervalMs() {
        return getLong(COMMIT_INTERVAL_MS_CONFIG);
    }

    /** The pacing set; at-least-once commits hold nothing back, so Kafka Streams' timer paces them. */
    public CommitPacing commitPacing() {
        return atLeastOnce() ? CommitPacing.INTERVAL : CommitPacing.fromConfig(getString(COMMIT_PACING_CONFIG));
    }

    public int streamThreads() {
        return getInt(NUM_STREAM_THREADS_CONFIG);
    }

    public long dedupeWindowMs() {
        return getLong(DEDUPE_WINDOW_MS_CONFIG);
    }

    public long timerResolutionMs() {
        return getLong(TIMER_RESOLUTION_MS_CONFIG);
    }

    public int maxPayloadBytes() {
        return getInt(MAX_PAYLOAD_BYTES_CONFIG);
    }

    public long heartbeatWindowMs() {
        return getLong(HEARTBEAT_WINDOW_MS_CONFIG);
    }

    public int transportLossBudget() {
        return getInt(TRANSPORT_LOSS_BUDGET_CONFIG);
    }

    public int statusPort() {
        return getInt(STATUS_PORT_CONFIG);
    }

    public int schemaRegistryRestPort() {
        return getInt(SCHEMA_REGISTRY_REST_PORT_CONFIG);
    }

    /**
     * Where other instances reach this one's query API: {@code application.server} when set, else
     * status.advertised.host:status.port when status.port is on, else none.
     *
     * @throws ConfigException if application.server is not host:port
     */
    public Optional<HostInfo> applicationServer() {
        Object set = originals().get(StreamsConfig.APPLICATION_SERVER_CONFIG);
        if (set != null && !set.toString().isBlank()) {
            try {
                return Optional.of(HostInfo.buildFromEndpoint(set.toString().strip()));
            } catch (org.apache.kafka.common.config.ConfigException e) {
                throw new ConfigException(StreamsConfig.APPLICATION_SERVER_CONFIG, set, "must be host:port");
            }
        }
        return statusPort() > 0 ? Optional.of(new HostInfo(getString(STATUS_ADVERTISED_HOST_CONFIG), statusPort())) : Optional.empty();
    }

    public long workerStaleMs() {
        return getLong(WORKER_STALE_MS_CONFIG);
    }

    /** The retry policy of activities that set none. */
    public RetryPolicy defaultRetryPolicy() {
        return new RetryPolicy(getLong(RETRY_INITIAL_INTERVAL_MS_CONFIG), getDouble(RETRY_BACKOFF_COEFFICIENT_CONFIG),
                getLong(RETRY_MAX_INTERVAL_MS_CONFIG), getInt(RETRY_MAX_ATTEMPTS_CONFIG), getList(RETRY_NON_RETRYABLE_PREFIXES_CONFIG));
    }

    /**
     * How long a transaction of this app may stay open before it is fenced as a crashed instance's:
     * {@code transaction.fence.after.ms}, raised to three commit intervals so a healthy instance's never
     * qualifies; 0 when off or under at-least-once (no transactions).
     */
    public long transactionFenceAfterMs() {
        long configured = getLong(TRANSACTION_FENCE_AFTER_MS_CONFIG);
        return configured == 0 || atLeastOnce() ? 0 : Math.max(configured, 3 * commitIntervalMs());
    }

    public long hangingTransactionCheckMs() {
        return getLong(HANGING_TRANSACTION_CHECK_MS_CONFIG);
    }

    public long hangingTransactionMinAgeMs() {
        return getLong(HANGING_TRANSACTION_MIN_AGE_MS_CONFIG);
    }

    public String applicationId() {
        return getString(APPLICATION_ID_CONFIG);
    }

    public long queueRefreshMs() {
        return getLong(QUEUE_REFRESH_MS_CONFIG);
    }

    public String schemaRegistryUrl() {
        return getString(SCHEMA_REGISTRY_URL_CONFIG);
    }

    /** Kafka client settings for the app's own Admin and registry clients. */
    public Map<String, Object> clientConfig() {
        Map<String, Object> p = new HashMap<>(originals());
        p.keySet().removeAll(CONFIG.names());
        p.put(BOOTSTRAP_SERVERS_CONFIG, getString(BOOTSTRAP_SERVERS_CONFIG));
        return p;
    }

    /** The app's own Admin clients (queue directory, partition checks, lag, status): {@link #clientConfig()} as an admin's. */
    public Map<String, Object> adminConfig() {
        return ClientConfigs.admin(clientConfig());
    }
}
