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

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.AuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aborts {@link HangingTransaction}s every {@code intervalMs}, so work behind one moves again instead
 * of waiting for an operator.
 *
 * <p>Aborting is safe for Baton's transactions even where the coordinator had decided to commit.
 * A worker's lease transaction aborted undoes the leases and the offsets together: the tasks are
 * leased again (a completion the worker already sent still resolves its site, and the late second
 * lease is ignored). A streams-app transaction aborted on every partition it lost its markers on
 * is a step not taken, and the step is taken again from its input. Only a transaction that lost
 * some markers but not others could lose records (an output whose input offsets were committed);
 * that partition would otherwise stay blocked for good, so it is aborted too, and logged.
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
    private final ScheduledExecutorService timer;
    private final Set<HangingTransaction> reported = new HashSet<>();
    private boolean deniedReported;

    public HangingTransactionReaper(Admin admin, HangingTransactionFinder finder) {
        this.admin = admin;
        this.finder = finder;
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
            List<HangingTransaction> aborted = new ArrayList<>();
            for (HangingTransaction h : finder.find()) {
                if (finder.stillOpen(h) && abort(h)) {
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

    private boolean abort(HangingTransaction h) throws InterruptedException {
        try {
            admin.abortTransaction(h.abortSpec()).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            log.warn(ABORTED + ": {}. Readers of the partition were stopped at it; its records are dropped and "
                    + "Baton redoes that work (leases are taken again, a streams-app step is processed again)", h);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            if (reported.add(h)) {
                log.error("a hanging transaction blocks {} and could not be aborted ({}); every reader of the partition waits until it is. "
                        + "Grant this app ALTER on the cluster, or run: {}", h, e.getCause() == null ? e : e.getCause(), h.abortCommand());
            }
            return false;
        }
    }

    /** Stops the timer and closes the admin client, which this reaper owns. */
    @Override
    public void close() {
        timer.shutdownNow();
        admin.close(Duration.ofSeconds(5));
    }
}
