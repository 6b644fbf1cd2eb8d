package dev.baton.morsel.kafka;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.ClientDnsLookup;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.DefaultHostResolver;
import org.apache.kafka.clients.Metadata;
import org.apache.kafka.clients.MetadataRecoveryStrategy;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.internals.ClusterResourceListeners;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.NetworkReceive;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * One scanning worker's reader of offset ranges that sends Fetch requests itself, on Kafka's own network
 * client (so the client's security settings apply as they do to a consumer), and walks each response's
 * record batches in place ({@link BatchWalk}): the records a {@code read_committed} consumer hands out, in
 * its order, as a reused {@link RecordView} instead of a {@code ConsumerRecord} each.
 *
 * <p>A range that starts where the last one ended, on the same partition, goes on in the same response
 * without a fetch; a partition left with bytes unread keeps them until this reader is {@linkplain #forget
 * told to forget}, so a later range that starts where it stopped goes on too. After each fetch the next one
 * (the same partition, where the response ends) is sent at once, so the broker reads while the worker walks.
 *
 * <p>Where it cannot serve (a broker without the Fetch versions it needs, an old message format) it throws
 * {@link UnservedException} naming why and the offset to go on from, having handed out every record before it.
 *
 * <p>Not thread-safe: owned by one worker at a time.
 */
final class FetchReader implements AutoCloseable {

    /** This reader cannot read on; the consumer can, from {@link #resumeAt}. */
    static final class UnservedException extends RuntimeException {
        private final long resumeAt;

        UnservedException(String reason, long resumeAt) {
            super(reason, null, false, false);
            this.resumeAt = resumeAt;
        }

        long resumeAt() {
            return resumeAt;
        }
    }

    /** The longest a wait polls before it checks the scan's cancellation again. */
    private static final long WAIT_SLICE_MS = 100;
    /** A fetch that brought nothing: what a walk past records deleted since the scan was planned starts from. */
    private static final MemoryRecords NOTHING = MemoryRecords.readableRecords(ByteBuffer.allocate(0).asReadOnlyBuffer());

    /** The last Fetch version that names topics rather than topic ids: for a topic whose id metadata lacks. */
    private static final short LAST_VERSION_BY_NAME = 12;

    private record Ahead(TopicPartition tp, long offset, ClientRequest request) {
    }

    private record Parked(BatchWalk walk, long next) {
    }

    /** Metadata of the topics this reader has read, not of every topic of the cluster (a client's default). */
    private static final class ScannedTopics extends Metadata {
        private final Set<String> topics = new HashSet<>();

        ScannedTopics(ConsumerConfig config, LogContext log) {
            super(config.getLong(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG), config.getLong(ConsumerConfig.RETRY_BACKOFF_MAX_MS_CONFIG),
                    config.getLong(ConsumerConfig.METADATA_MAX_AGE_CONFIG), log, new ClusterResourceListeners());
        }

        /** True if {@code topic} is new: its metadata comes with the next update. */
        synchronized boolean add(String topic) {
            return topics.add(topic);
        }

        @Override
        protected synchronized MetadataRequest.Builder newMetadataRequestBuilder() {
            return new MetadataRequest.Builder(new ArrayList<>(topics), false);
        }

        @Override
        protected synchronized MetadataRequest.Builder newMetadataRequestBuilderForNewTopics() {
            return newMetadataRequestBuilder();
        }
    }

    private final Time time = Time.SYSTEM;
    private final Metrics metrics;
    private final ScannedTopics metadata;
    private final NetworkClient client;
    private final BufferSupplier decompression = BufferSupplier.create();
    private final ResponseBuffers responses = new ResponseBuffers();
    private final int partitionMaxBytes;
    private final int fetchMaxBytes;
    private final int maxWaitMs;
    private final int requestTimeoutMs;
    private final boolean checkCrcs;
    private final Duration stall;

    private final Map<TopicPartition, Parked> parked = new HashMap<>();
    /** Responses that arrived while another was awaited (the fetch sent ahead, put on the wire at once). */
    private final Map<Integer, ClientResponse> arrived = new HashMap<>();
    /** Requests whose responses are dropped as they arrive: fetches sent ahead for a job that has ended. */
    private final Set<Integer> abandoned = new HashSet<>();
    /** The running scan's cancellation, checked in every wait (a fetch, a connection, a metadata update). */
    private BooleanSupplier cancelled = () -> false;
    private OffsetRange range;
    private TopicPartition tp;
    /** The offset the next range must start at to go on without a fetch. */
    private long next = -1;
    private BatchWalk walk;
    private long fetchAt;
    private long lastStable = -1;
    private Ahead ahead;

    /** @param readerConfig a scan reader's consumer settings ({@link ScanConsumers#readerConfig}) */
    FetchReader(Map<String, Object> readerConfig, Duration stall) {
        Map<String, Object> c = new HashMap<>(readerConfig);
        c.putIfAbsent(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        c.putIfAbsent(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        ConsumerConfig config = new ConsumerConfig(c);
        this.stall = stall;
        partitionMaxBytes = config.getInt(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG);
        fetchMaxBytes = config.getInt(ConsumerConfig.FETCH_MAX_BYTES_CONFIG);
        maxWaitMs = config.getInt(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG);
        requestTimeoutMs = config.getInt(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG);
        checkCrcs = config.getBoolean(ConsumerConfig.CHECK_CRCS_CONFIG);
        LogContext log = new LogContext("[scan fetch reader " + config.getString(ConsumerConfig.CLIENT_ID_CONFIG) + "] ");
        metadata = new ScannedTopics(config, log);
        List<String> servers = config.getList(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG);
        metadata.bootstrap(ClientUtils.parseAndValidateAddresses(servers,
                ClientDnsLookup.forConfig(config.getString(ConsumerConfig.CLIENT_DNS_LOOKUP_CONFIG))));
        metrics = new Metrics(time);
        client = networkClient(config, servers, log);
    }

    /**
     * A network client as {@code ClientUtils.createNetworkClient} makes a consumer's (the same settings, so SASL and TLS
     * apply alike), but reading responses into {@link #responses}: Kafka's factory gives no way to pass a memory pool.
     */
    private NetworkClient networkClient(ConsumerConfig config, List<String> servers, LogContext log) {
        ChannelBuilder channels = ClientUtils.createChannelBuilder(config, time, log);
        Selector selector = null;
        try {
            selector = new Selector(NetworkReceive.UNLIMITED, config.getLong(ConsumerConfig.CONNECTIONS_MAX_IDLE_MS_CONFIG), 0, metrics, time,
                    "scan-fetch", Map.of(), true, false, channels, responses, log);
            return new NetworkClient(null, metadata, selector, config.getString(ConsumerConfig.CLIENT_ID_CONFIG), 2,
                    config.getLong(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG), config.getLong(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG),
                    config.getInt(ConsumerConfig.SEND_BUFFER_CONFIG), config.getInt(ConsumerConfig.RECEIVE_BUFFER_CONFIG), requestTimeoutMs,
                    config.getLong(ConsumerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG),
                    config.getLong(ConsumerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG), time, true, new ApiVersions(), null, log,
                    new DefaultHostResolver(), null, config.getLong(CommonClientConfigs.METADATA_RECOVERY_REBOOTSTRAP_TRIGGER_MS_CONFIG),
                    MetadataRecoveryStrategy.forName(config.getString(CommonClientConfigs.METADATA_RECOVERY_STRATEGY_CONFIG)),
                    ClientUtils.bootstrapConfiguration(config, servers), config.getBoolean(CommonClientConfigs.METADATA_CLUSTER_CHECK_ENABLE_CONFIG));
        } catch (RuntimeException | Error e) {
            Utils.closeQuietly(selector, "scan fetch selector");
            Utils.closeQuietly(channels, "scan fetch channel builder");
            throw e;
        }
    }

    /**
     * Hands every committed record of {@code range} to {@code visitor} in offset order.
     *
     * @return the records handed out
     * @throws CancellationException if {@code cancelled} turned true (checked before each fetch)
     * @throws UnservedException     if this reader cannot read on; the records before its offset were handed out
     * @throws IllegalStateException if nothing arrives for the stall time before the range's end
     */
    long scan(OffsetRange range, Consumer<RecordView> visitor, BooleanSupplier cancelled) {
        this.cancelled = cancelled;
        this.range = range;
        try {
            return scanFrom(range, visitor);
        } catch (RuntimeException | Error e) {
            // Where this scan stopped is not where the range starts: the same range asked again must be read from its
            // start, not taken for a continuation (a page whose decode failed is asked for again, whole).
            tp = null;
            walked(walk);
            walk = null;
            next = -1;
            throw e;
        } finally {
            this.cancelled = () -> false;
        }
    }

    private long scanFrom(OffsetRange range, Consumer<RecordView> visitor) {
        position(range);
        long seen = 0;
        long lastProgress = System.nanoTime();
        while (true) {
            if (walk != null && ready()) {
                FetchedRecord r = walk.view();
                if (r.offset() >= range.to()) {
                    break; // left for the range that starts here
                }
                walk.take();
                visitor.accept(r);
                seen++;
                continue;
            }
            long at = walk == null ? fetchAt : walk.walked();
            if (at >= range.to()) {
                break; // the rest of the range was transaction markers or aborted records
            }
            stopIfCancelled(at);
            walked(walk); // every record of it handed out, or before this range: its bytes are read no more
            walk = null; // until the fetch returns: a fetch that throws must not leave it to be handed back again
            walk = fetch(tp, at);
            if (walk.walked() > at || ready()) {
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > stall.toNanos()) {
                throw new IllegalStateException("no progress reading " + range + " for " + stall.toSeconds() + " s (at offset " + at
                        + "); the partition's last stable offset is " + lastStable
                        + (lastStable <= at ? ": an open transaction holds it, or the range ends past the log's end" : ""));
            }
        }
        next = range.to();
        return seen;
    }

    private boolean ready() {
        try {
            return walk.ready();
        } catch (BatchWalk.OldFormatException e) {
            throw new UnservedException(e.getMessage(), walk.walked());
        }
    }

    private void stopIfCancelled(long at) {
        if (cancelled.getAsBoolean()) {
            throw new CancellationException("scan of " + range + " cancelled at offset " + at);
        }
    }

    /** Drops what partitions left behind: a new job's ranges start afresh. */
    void forget() {
        if (ahead != null && ahead.request() != null) {
            // its bytes may be of a log that has changed since (a topic recreated between jobs): never read them
            int id = ahead.request().correlationId();
            if (arrived.remove(id) == null) {
                abandoned.add(id);
            }
        }
        ahead = null;
        parked.values().forEach(p -> walked(p.walk()));
        parked.clear();
        tp = null;
        walked(walk);
        walk = null;
        next = -1;
    }

    /** Hands {@code done}'s response buffer back to be read into again: nothing reads its records any more. */
    private void walked(BatchWalk done) {
        if (done != null) {
            responses.keep(done.fetched());
        }
    }

    private void position(OffsetRange range) {
        TopicPartition p = new TopicPartition(range.topic(), range.partition());
        if (p.equals(tp) && next == range.from()) {
            return;
        }
        if (tp != null && walk != null) {
            Parked replaced = parked.put(tp, new Parked(walk, next));
            if (replaced != null) {
                walked(replaced.walk());
            }
        }
        Parked back = parked.remove(p);
        tp = p;
        walk = back != null && back.next() == range.from() ? back.walk() : null;
        if (back != null && walk == null) {
            walked(back.walk()); // not where this range starts: fetched again
        }
        fetchAt = range.from();
        next = range.from();
    }

    /** The response to a fetch of {@code p} at {@code at}: the one sent ahead if it asked for that, else a new one. */
    private BatchWalk fetch(TopicPartition p, long at) {
        long deadline = System.nanoTime() + stall.toNanos();
        Ahead a = ahead;
        ahead = null;
        if (a != null) {
            ClientResponse r = await(a.request());
            if (a.tp().equals(p) && a.offset() == at && r != null) {
                BatchWalk w = walkOf(r, p, at);
                if (w != null) {
                    return w;
                }
            }
        }
        while (true) {
            ClientRequest request = send(p, at, deadline);
            ClientResponse r = request == null ? null : await(request);
            BatchWalk w = r == null ? null : walkOf(r, p, at);
            if (w != null) {
                return w;
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("no fetch of " + p + " at offset " + at + " succeeded for " + stall.toSeconds() + " s");
            }
            stopIfCancelled(at);
            refreshMetadata(deadline);
        }
    }

    /** A walk over the response's records, or null when the fetch is to be sent again (after a metadata refresh). */
    private BatchWalk walkOf(ClientResponse r, TopicPartition p, long at) {
        if (r.versionMismatch() != null) {
            throw new UnservedException("the broker has no Fetch version this reader can use: " + r.versionMismatch().getMessage(), at);
        }
        if (r.authenticationException() != null) {
            throw r.authenticationException();
        }
        if (r.wasDisconnected() || !(r.responseBody() instanceof FetchResponse response)) {
            return null;
        }
        if (response.error() != Errors.NONE) {
            throw response.error().exception("fetch of " + p + " at offset " + at + " failed");
        }
        FetchResponseData.PartitionData data = response.responseData(metadata.topicNames(), r.requestHeader().apiVersion()).get(p);
        if (data == null) {
            return null;
        }
        Errors error = Errors.forCode(data.errorCode());
        switch (error) {
            case NONE:
                break;
            case NOT_LEADER_OR_FOLLOWER, REPLICA_NOT_AVAILABLE, KAFKA_STORAGE_ERROR, FENCED_LEADER_EPOCH, OFFSET_NOT_AVAILABLE,
                 UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID, INCONSISTENT_TOPIC_ID, UNKNOWN_LEADER_EPOCH, LEADER_NOT_AVAILABLE:
                return null;
            case OFFSET_OUT_OF_RANGE:
                // the broker leaves the bounds at -1 in this error: the log's start is asked for
                long start = logStart(p);
                if (start > at) {
                    // Records before it were deleted (retention, deleteRecords) since the scan was planned: gone for any
                    // reader, so the scan reads on from where the log starts now, as a scan planned now would.
                    return new BatchWalk(p.partition(), NOTHING, start, null, checkCrcs, decompression);
                }
                throw new IllegalStateException("offset " + at + " of " + p + " is out of range (the log starts at "
                        + (start < 0 ? "unknown" : start) + "): past the log's end, which was truncated since the scan was"
                        + " planned; run the scan again, it plans from the offsets of the moment");
            default:
                throw error.exception("fetch of " + p + " at offset " + at + " failed");
        }
        Records records = FetchResponse.recordsOrFail(data);
        if (!(records instanceof MemoryRecords memory)) {
            throw new UnservedException("the fetch brought records of type " + records.getClass().getSimpleName(), at);
        }
        lastStable = data.lastStableOffset() >= 0 ? data.lastStableOffset() : data.highWatermark();
        BatchWalk w = new BatchWalk(p.partition(), memory, at, data.abortedTransactions(), checkCrcs, decompression);
        long after = w.fetchedTo();
        if (after > at && after < lastStable) {
            ahead = new Ahead(p, after, send(p, after, System.nanoTime() + stall.toNanos()));
            keep(client.poll(0, time.milliseconds())); // send() only queues: this writes it, so the broker reads while the worker walks
        }
        return w;
    }

    private ClientRequest send(TopicPartition p, long at, long deadline) {
        Node leader = leader(p, deadline);
        if (!connected(leader, at)) {
            return null; // the connection failed or took too long: the leader may have moved
        }
        Uuid id = metadata.topicIds().getOrDefault(p.topic(), Uuid.ZERO_UUID);
        short version = Uuid.ZERO_UUID.equals(id) ? LAST_VERSION_BY_NAME : ApiKeys.FETCH.latestVersion();
        FetchRequest.PartitionData data = new FetchRequest.PartitionData(id, at, -1L, partitionMaxBytes, Optional.empty());
        FetchRequest.Builder builder = FetchRequest.Builder.forConsumer(version, maxWaitMs, 1, Map.of(p, data))
                .isolationLevel(IsolationLevel.READ_COMMITTED)
                .setMaxBytes(fetchMaxBytes);
        long now = time.milliseconds();
        ClientRequest request = client.newClientRequest(leader.idString(), builder, now, true);
        client.send(request, now);
        return request;
    }

    /** As {@code NetworkClientUtils.awaitReady}, checking the scan's cancellation between polls. */
    private boolean connected(Node node, long at) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(requestTimeoutMs);
        while (!client.ready(node, time.milliseconds())) {
            if (client.connectionFailed(node)) {
                AuthenticationException e = client.authenticationException(node);
                if (e != null) {
                    throw e;
                }
                return false;
            }
            if (System.nanoTime() > until) {
                return false;
            }
            stopIfCancelled(at);
            keep(client.poll(WAIT_SLICE_MS, time.milliseconds()));
        }
        return true;
    }

    /**
     * The response to {@code request}, or null if it was lost (the client times requests out itself and answers them
     * as disconnected). Waits in slices so a cancelled scan stops within one.
     */
    private ClientResponse await(ClientRequest request) {
        if (request == null) {
            return null;
        }
        while (true) {
            ClientResponse r = arrived.remove(request.correlationId());
            if (r != null) {
                return r;
            }
            if (cancelled.getAsBoolean()) {
                abandoned.add(request.correlationId()); // nobody will await it: drop its response as it arrives
                stopIfCancelled(-1);
            }
            keep(client.poll(WAIT_SLICE_MS, time.milliseconds()));
        }
    }

    private void keep(List<ClientResponse> responses) {
        for (ClientResponse r : responses) {
            int id = r.requestHeader().correlationId();
            if (!abandoned.remove(id)) {
                arrived.put(id, r);
            }
        }
    }

    /** The log start offset of {@code p} as its leader says, or -1 if it cannot be asked. */
    private long logStart(TopicPartition p) {
        try {
            Node leader = metadata.fetch().leaderFor(p);
            if (leader == null || !connected(leader, -1)) {
                return -1;
            }
            ListOffsetsRequestData.ListOffsetsTopic topic = new ListOffsetsRequestData.ListOffsetsTopic().setName(p.topic())
                    .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(p.partition())
                            .setTimestamp(ListOffsetsRequest.EARLIEST_TIMESTAMP)));
            ListOffsetsRequest.Builder builder = ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_COMMITTED)
                    .setTargetTimes(List.of(topic));
            long now = time.milliseconds();
            ClientRequest request = client.newClientRequest(leader.idString(), builder, now, true);
            client.send(request, now);
            ClientResponse r = await(request);
            if (r != null && r.responseBody() instanceof ListOffsetsResponse offsets) {
                for (ListOffsetsResponseData.ListOffsetsTopicResponse t : offsets.topics()) {
                    for (ListOffsetsResponseData.ListOffsetsPartitionResponse q : t.partitions()) {
                        if (q.partitionIndex() == p.partition() && q.errorCode() == Errors.NONE.code()) {
                            return q.offset();
                        }
                    }
                }
            }
            return -1;
        } catch (CancellationException e) {
            throw e;
        } catch (RuntimeException e) {
            return -1; // asked only after a fetch failed: that failure is what gets reported
        }
    }

    private Node leader(TopicPartition p, long deadline) {
        if (metadata.add(p.topic())) {
            refreshMetadata(deadline);
        }
        while (true) {
            Node leader = metadata.fetch().leaderFor(p);
            if (leader != null) {
                return leader;
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("no leader known for " + p + " after " + stall.toSeconds() + " s: does the topic exist?");
            }
            refreshMetadata(deadline);
        }
    }

    private void refreshMetadata(long deadline) {
        int version = metadata.requestUpdate(true);
        while (metadata.updateVersion() <= version && System.nanoTime() < deadline) {
            stopIfCancelled(-1);
            keep(client.poll(WAIT_SLICE_MS, time.milliseconds()));
            metadata.maybeThrowAnyException();
        }
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            metadata.close();
            metrics.close();
        }
    }
}
