package dev.baton.streams.recovery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the open transaction of an instance of this application that crashed, as soon as it has left
 * the group, instead of when its coordinator times it out.
 *
 * <p>Such a transaction holds back every read_committed reader of the partitions it wrote (history,
 * task topics, results, changelogs), so the sites on the tasks that moved to another instance wait
 * until it ends. Its coordinator aborts it only {@code transaction.timeout.ms} after it began (10 s
 * under Streams' exactly-once), and then only at its next sweep
 * ({@code transaction.abort.timed.out.transaction.cleanup.interval.ms}, 10 s on a default broker).
 * Fencing its transactional id ends it at once: a producer that initializes under the same id bumps
 * the epoch, the coordinator aborts the open transaction, and the old producer, should it still be
 * alive, can no longer write or commit. Its step's input offsets are aborted with it, so whichever
 * instance owns the task now processes the step again. That is what a restarted instance does to its
 * own id; this does it without waiting for the restart.
 *
 * <p>A transaction is fenced only when it has been open longer than {@code openLongerThan} and the
 * process it belongs to (the UUID in its id) has no member in the application's consumer group, i.e.
 * its session has ended. A live instance whose transaction is merely slow (a broker stalled for a few
 * seconds) is left to its own timeout. When membership cannot be told (a member's client id carries
 * no process UUID: a custom {@code client.id}) nothing is fenced; see {@link #memberProcessIds()}.
 */
public final class AbandonedTransactionFencer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AbandonedTransactionFencer.class);
    private static final long TIMEOUT_MS = 10_000;
    /** How each fence's log line starts; the soak counts them. */
    public static final String FENCED = "fenced an abandoned transaction";

    private static final Pattern PROCESS_ID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private final Admin admin;
    private final Consumer<String> fencing;
    private final String applicationId;
    private final Pattern ownIds;
    private final Pattern memberClientIds;
    private final Duration openLongerThan;
    private final ScheduledExecutorService timer;
    private boolean deniedReported;
    private boolean unnamedReported;

    /**
     * @param producerSettings the app's client settings (bootstrap servers, security)
     * @param applicationId    the Streams application id: its exactly-once transactional ids are
     *                         {@code <application.id>-<process UUID>-<thread index>}
     */
    public AbandonedTransactionFencer(Admin admin, Map<String, ?> producerSettings, String applicationId, Duration openLongerThan) {
        this(admin, applicationId, openLongerThan, id -> fence(new HashMap<>(producerSettings), id, openLongerThan));
    }

    /** @param fencing fences one transactional id (a test's fake stands in for the producer) */
    AbandonedTransactionFencer(Admin admin, String applicationId, Duration openLongerThan, Consumer<String> fencing) {
        this.admin = admin;
        this.fencing = fencing;
        this.applicationId = applicationId;
        this.ownIds = transactionalIdsOf(applicationId);
        this.memberClientIds = Pattern.compile(Pattern.quote(applicationId) + "-(" + PROCESS_ID.pattern() + ")-StreamThread-[0-9]+-consumer");
        this.openLongerThan = openLongerThan;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "baton-abandoned-transaction-fencer");
            t.setDaemon(true);
            return t;
        });
    }

    /** The transactional ids Kafka Streams gives {@code applicationId}'s stream threads under exactly_once_v2. */
    static Pattern transactionalIdsOf(String applicationId) {
        // The broker matches the pattern too, with its own engine: escape by hand what an application id may hold.
        return Pattern.compile(applicationId.replace(".", "\\.") + "-" + PROCESS_ID.pattern() + "-[0-9]+");
    }

    public AbandonedTransactionFencer start(Duration interval) {
        timer.scheduleWithFixedDelay(() -> {
            try {
                runOnce();
            } catch (Throwable t) { // anything escaping would cancel the schedule, and the fencer with it
                log.error("abandoned-transaction check failed (will try again)", t);
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * One pass: lists this app's transactions open longer than the limit, keeps those of processes
     * with no member in the group, and fences each. Returns the ids fenced.
     */
    public List<String> runOnce() {
        try {
            List<String> open = admin.listTransactions(new ListTransactionsOptions()
                            .filterStates(List.of(TransactionState.ONGOING))
                            .filterOnDuration(openLongerThan.toMillis())
                            .filterOnTransactionalIdPattern(ownIds.pattern()))
                    .all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS).stream()
                    .map(TransactionListing::transactionalId)
                    .filter(id -> ownIds.matcher(id).matches()) // the broker's filter, checked again here
                    .toList();
            if (open.isEmpty()) {
                return open;
            }
            List<String> fenced = new ArrayList<>();
            Optional<Set<String>> members = memberProcessIds();
            for (String id : open) {
                if (members.isEmpty()) {
                    break; // who is live cannot be told: left to the coordinator's timeout
                }
                if (!members.get().contains(processIdOf(applicationId, id))) {
                    fencing.accept(id);
                    fenced.add(id);
                    // A fence may block for seconds, in which a crashed process can come back under the
                    // same UUID (Streams keeps it in the state directory) and open a new transaction.
                    members = memberProcessIds();
                }
            }
            return fenced;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            if (e.getCause() instanceof AuthorizationException denied) {
                if (!deniedReported) {
                    deniedReported = true;
                    log.warn("cannot list this app's transactions to end a crashed instance's at once: {}. Grant DESCRIBE on its "
                            + "transactional ids, or set transaction.fence.after.ms=0", denied.toString());
                }
            } else {
                log.warn("could not look for abandoned transactions (will try again): {}", e.toString());
            }
            return List.of();
        }
    }

    /**
     * The process UUIDs of the group's members, or empty when they cannot be told, and then nothing is
     * fenced: a live instance taken for a crashed one would be fenced through every slow transaction.
     * A classic group's members are its stream threads' main consumers, named
     * {@code <application.id>-<UUID>-StreamThread-<n>-consumer}; one named otherwise (a custom
     * {@code client.id}) leaves the UUIDs unknown. A streams group ({@code group.protocol=streams}), which
     * describeConsumerGroups reports as not found, names each member's process itself. A group that is
     * neither has no member view to trust (no instance of this app holds an assignment that could have
     * opened a transaction without a group).
     */
    Optional<Set<String>> memberProcessIds() throws InterruptedException, ExecutionException, TimeoutException {
        List<MemberDescription> members;
        try {
            members = List.copyOf(admin.describeConsumerGroups(List.of(applicationId)).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .get(applicationId).members());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return streamsGroupProcessIds();
            }
            throw e;
        }
        Set<String> ids = new HashSet<>();
        for (MemberDescription m : members) {
            Matcher consumer = memberClientIds.matcher(m.clientId());
            if (!consumer.matches()) {
                if (!unnamedReported) {
                    unnamedReported = true;
                    log.warn("member {} of group {} has no process UUID in its client id (a custom client.id?): a crashed instance's "
                            + "transaction is left to its coordinator's timeout", m.clientId(), applicationId);
                }
                return Optional.empty();
            }
            ids.add(consumer.group(1));
        }
        return Optional.of(ids);
    }

    private Optional<Set<String>> streamsGroupProcessIds() throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return Optional.of(admin.describeStreamsGroups(List.of(applicationId)).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .get(applicationId).members().stream().map(StreamsGroupMemberDescription::processId).collect(Collectors.toSet()));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** The process UUID of one of {@code applicationId}'s transactional ids: the one after the application id, which may hold a UUID too. */
    static String processIdOf(String applicationId, String transactionalId) {
        Matcher uuid = PROCESS_ID.matcher(transactionalId);
        return uuid.find(applicationId.length() + 1) ? uuid.group() : "";
    }

    private static void fence(Map<String, Object> producerSettings, String transactionalId, Duration openLongerThan) {
        fence(producerSettings, transactionalId, openLongerThan, Duration.ofMillis(TIMEOUT_MS));
    }

    /** Fences one id, giving up after about {@code maxBlock} and a half. */
    static void fence(Map<String, Object> producerSettings, String transactionalId, Duration openLongerThan, Duration maxBlock) {
        Map<String, Object> c = ClientConfigs.transactionalProducer(producerSettings, transactionalId);
        c.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) maxBlock.toMillis());
        // The producer's thread waits for a coordinator connection up to request.timeout.ms in one
        // blocking call that closing does not cut short: 30 s by default, so a fence against a hung
        // coordinator took ~31 s, not max.block.ms. Half of max.block.ms bounds a fence to ~1.5 times it.
        c.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) maxBlock.toMillis() / 2);
        KafkaProducer<byte[], byte[]> fencing = null;
        try {
            fencing = new KafkaProducer<>(c, new ByteArraySerializer(), new ByteArraySerializer());
            fencing.initTransactions(); // bumps the epoch; the coordinator aborts what the old producer left open
            log.warn(FENCED + ": {} was open longer than {} ms and its process has left the group; aborted, and its step is "
                    + "processed again by the instance that owns the task now", transactionalId, openLongerThan.toMillis());
        } catch (KafkaException e) {
            log.warn("could not fence {} (its coordinator will abort it at its timeout): {}", transactionalId, e.toString());
        } finally {
            if (fencing != null) {
                // Nothing is left to send once initTransactions returns; after one that timed out, what a
                // hung coordinator never answers is not waited for: each fence holds up the fencer's only
                // thread, and every abandoned id behind it.
                fencing.close(Duration.ZERO);
            }
        }
    }

    /** Stops the timer and closes the admin client, which this fencer owns. */
    @Override
    public void close() {
        timer.shutdownNow();
        admin.close(Duration.ofSeconds(5));
    }
}
