package dev.baton.streams.recovery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.internals.Topic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aborts {@link HangingTransaction}s every {@code intervalMs}, where that undoes them safely, so work
 * behind one moves again instead of waiting for an operator.
 *
 * <p>An abort drops the transaction's records on that partition, even where its coordinator had
 * decided to commit. Safe when the same transaction also hangs on its consumer-offsets partition:
 * its input offsets are undone with it and the work is done again (a worker's tasks are leased
 * again, a streams-app step is processed again). A worker's lease transaction is aborted even when
 * its offsets had been committed: the leases go, but the worker's completions travel apart and still
 * resolve the sites, and the partition stops blocking every other site. A streams-app transaction
 * whose offsets had been committed is not aborted: its step would be lost, not redone, and a lost
 * changelog write brings back a state that yields a second outcome (a soak saw 13). It is logged as an
 * error with the operator's command instead.
 *
 * <p>Aborting needs ALTER on the cluster; without it the reaper logs the operator's command.
 */
public final class HangingTransactionReaper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HangingTransactionReaper.class);
    private static final long TIMEOUT_MS = 10_000;
    /** How each abort's log line starts; the soak counts them. */
    public static final String ABORTED = "aborted a hanging transaction";

    private final Admin admin;
    private final HangingTransactionFinder finder;
    private final Predicate<String> workerTransactionalId;
    private final ScheduledExecutorService timer;
    /** Transactions already logged as not aborted, by partition, producer and start: what the coordinator says may change. */
    private final Set<String> reported = new HashSet<>();
    private boolean deniedReported;

    /** @param workerTransactionalId which transactions are workers' lease transactions */
    public HangingTransactionReaper(Admin admin, HangingTransactionFinder finder, Predicate<String> workerTransactionalId) {
        this.admin = admin;
        this.finder = finder;
        this.workerTransactionalId = workerTransactionalId;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "baton-hanging-transaction-reaper");
            t.setDaemon(true);
            return t;
        });
    }

    public HangingTransactionReaper start(Duration interval) {
        timer.scheduleWithFixedDelay(this::runOnce, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /** One pass: finds, checks again, aborts. Returns the transactions aborted. */
    public List<HangingTransaction> runOnce() {
        try {
            List<HangingTransaction> found = finder.find();
            List<HangingTransaction> aborted = new ArrayList<>();
            for (HangingTransaction h : found) {
                boolean redone = inputOffsetsPending(h, found);
                if (!redone && !workerTransactionalId.test(h.transactionalId())) {
                    reportOnce(h, "its input offsets were committed, so aborting it would lose its step (and a lost changelog write can "
                            + "yield a second outcome)");
                } else if (finder.stillOpen(h) && abort(h, redone)) {
                    aborted.add(h);
                }
            }
            return aborted;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            if (e.getCause() instanceof AuthorizationException denied) {
                // Lasting, not transient: say it once rather than every interval.
                if (!deniedReported) {
                    deniedReported = true;
                    log.warn("cannot look for hanging transactions: {}. Grant this app DESCRIBE and READ on the topics it watches, "
                            + "or set hanging.transaction.check.ms=0", denied.toString());
                }
            } else {
                log.warn("could not check for hanging transactions (will try again): {}", e.toString());
            }
            return List.of();
        }
    }

    /**
     * Whether the same transaction also hangs on a consumer-offsets partition: then aborting undoes
     * its input offsets too, and its consumer does the work again.
     */
    private static boolean inputOffsetsPending(HangingTransaction h, List<HangingTransaction> found) {
        return found.stream().anyMatch(o -> o.producerId() == h.producerId() && o.producerEpoch() == h.producerEpoch()
                && o.partition().topic().equals(Topic.GROUP_METADATA_TOPIC_NAME));
    }

    private boolean abort(HangingTransaction h, boolean redone) throws InterruptedException {
        try {
            admin.abortTransaction(h.abortSpec()).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            if (redone) {
                log.warn(ABORTED + ": {}. Its input offsets are undone with it, so its work is done again (leases are taken "
                        + "again, a streams-app step is processed again)", h);
            } else {
                log.warn(ABORTED + ": {}. Its offsets had been committed: its leases are gone, the sites resolve through the "
                        + "completions their worker sends apart", h);
            }
            return true;
        } catch (ExecutionException | TimeoutException e) {
            reportOnce(h, "the abort failed (" + (e.getCause() == null ? e : e.getCause()) + "); grant this app ALTER on the cluster");
            return false;
        }
    }

    private void reportOnce(HangingTransaction h, String why) {
        if (reported.add(h.partition() + "/" + h.producerId() + "/" + h.producerEpoch() + "/" + h.startOffset())) {
            log.error("a hanging transaction blocks {}: every reader of the partition waits until it ends. Not aborted here: {}. "
                    + "To end it, run: {}", h, why, h.abortCommand());
        }
    }

    /** Stops the timer and closes the admin client, which this reaper owns. */
    @Override
    public void close() {
        timer.shutdownNow();
        admin.close(Duration.ofSeconds(5));
    }
}
