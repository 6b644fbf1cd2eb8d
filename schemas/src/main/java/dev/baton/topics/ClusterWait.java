package dev.baton.topics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for a cluster that does not answer yet: a process started before its brokers (a container
 * set coming up, a broker restarting) waits for them, as its Kafka clients would once running,
 * instead of exiting on the first client call that times out. An answer that is not a timeout (a
 * refused login, say) ends the wait at once: waiting would not change it.
 */
public final class ClusterWait {

    private static final Logger log = LoggerFactory.getLogger(ClusterWait.class);
    /** How long one attempt waits for an answer. */
    static final Duration ATTEMPT = Duration.ofSeconds(5);
    /** How often a process still waiting says so. */
    static final Duration REPORT_EVERY = Duration.ofSeconds(30);

    private ClusterWait() {
    }

    /**
     * Returns once a broker of {@code settings}' cluster answers; {@code who} names the process in the log.
     *
     * @throws InterruptedException if the waiting thread is interrupted (a shutdown)
     * @throws IllegalStateException if the cluster answers with an error that waiting would not cure
     */
    public static void untilAnswering(Map<String, ?> settings, String who) throws InterruptedException {
        Object bootstrap = settings.get("bootstrap.servers");
        long started = System.nanoTime();
        long lastReport = 0;
        try (Admin admin = Admin.create(ClientConfigs.admin(settings))) {
            while (true) {
                try {
                    admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) ATTEMPT.toMillis())).clusterId()
                            .get(ATTEMPT.toMillis() + 1_000, TimeUnit.MILLISECONDS);
                    if (lastReport != 0) {
                        log.info("{}: the cluster at {} answers after {} s; starting", who, bootstrap,
                                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
                    }
                    return;
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof RetriableException)) {
                        throw new IllegalStateException(who + ": the cluster at " + bootstrap + " refused: " + e.getCause(), e.getCause());
                    }
                    lastReport = report(who, bootstrap, e.getCause(), started, lastReport);
                } catch (TimeoutException e) {
                    lastReport = report(who, bootstrap, e, started, lastReport);
                }
            }
        }
    }

    private static long report(String who, Object bootstrap, Throwable why, long started, long lastReport) {
        long now = System.nanoTime();
        if (lastReport == 0 || now - lastReport >= REPORT_EVERY.toNanos()) {
            log.warn("{}: no broker at {} answers yet ({}), waiting for one for {} s so far; check bootstrap.servers and that "
                    + "the brokers are up", who, bootstrap, why.toString(), TimeUnit.NANOSECONDS.toSeconds(now - started));
            return now;
        }
        return lastReport;
    }
}
