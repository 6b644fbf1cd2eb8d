package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.CliRun;
import org.junit.jupiter.api.Test;

/**
 * The CI variant of the chaos soak: a few thousand activities over three worker processes and two
 * streams-app processes, while workers are killed every few seconds, one streams-app instance is
 * killed and restarted, and every connection to the broker is cut for a few seconds. The stream
 * mixes in joined callers, resent requests, takeovers, cancels, pinned dispatches (to a served, an
 * unserved and an undeclared node) and a second queue shared by multi-queue workers; every request
 * id must get exactly one outcome of a kind its role allows. The full run is {@code baton soak} with
 * its defaults (a broker restart); its output is kept in docs/reliability/.
 *
 * <p>Why a cut and not a restart here: restarting the single embedded broker under this load makes
 * Kafka 4.4.0 lose transaction markers now and then (KAFKA-20734: the coordinator skips partitions
 * that are leaderless for a moment), and a streams-app step hung that way cannot be undone safely.
 * That failure is Kafka's, not Baton's: with a restart, 6 of 34 soaks failed on 2026-12-01 (most with
 * two soaks at once on the 2 cores); with a cut, none of 10 run the same way.
 */
class SoakIT {

    @Test
    void shouldResolveEveryActivityExactlyOnceThroughWorkerAndStreamsAppCrashesAndABrokerOutage() {
        CliRun run = CliRun.of("soak", "--activities", "2000", "--rate", "150", "--kill-worker-every-s", "8", "--timeout-minutes", "4",
                "--broker-outage", "DISCONNECT");

        assertThat(run.output()).contains("kill -9 worker", "kill -9 streams app streams-1", "restarted streams app streams-1",
                "cutting every connection to the broker", "connections to the broker let through again", "2000 dispatched, 2000 resolved",
                "all invariants hold", "wrong outcomes    0",
                "answered exactly once, 0 with no outcome, 0 with more than one, 0 outcomes for requests never sent");
        assertThat(run.output()).as("the new semantics are exercised").contains("joined echo: joined", "joined flaky: joined",
                "resent (same request id twice)", "takeover: attempt 1, joined", "takeover: attempt 2", "cancel: joined",
                "pinned to a served node", "pinned to an unserved node", "pinned to an undeclared node", "second queue",
                "superseded:", "cancelled:", "unavailable:");
        assertThat(run.exit()).as(run.output()).isZero();
    }

    /**
     * The same under at-least-once: the streams apps may reprocess steps whose state survived the
     * kill, and the workers lease plainly (handlers start as tasks are read). Outcomes may repeat; a
     * request with two different outcomes, or none, fails it as above.
     *
     * <p>Here the broker is restarted, down for 8 s: nothing runs a transaction in this mode, so
     * KAFKA-20734 does not apply, and 8 s is longer than a client's 5 s wait for metadata. A dispatch
     * client whose results listener stopped on that wait failed every pending dispatch at the 100k
     * soak's restart (docs/decisions.md, "A broker restart must not stop a dispatch client"); this
     * case failed 2 of 2 runs with that bug put back, and a 3 s outage passed with it 2 of 2.
     */
    @Test
    void shouldResolveEveryActivityExactlyOnceAtLeastOnce() {
        CliRun run = CliRun.of("soak", "--guarantee", "at_least_once", "--activities", "2000", "--rate", "150", "--kill-worker-every-s", "8",
                "--timeout-minutes", "4", "--broker-outage", "RESTART", "--broker-down-s", "8");

        assertThat(run.output()).contains("kill -9 worker", "kill -9 streams app streams-1", "restarted streams app streams-1",
                "stopping the broker", "broker started again on the same data dir after 8000 ms down",
                "2000 dispatched, 2000 resolved", "all invariants hold", "wrong outcomes    0",
                "answered exactly once, 0 with no outcome, 0 with more than one, 0 outcomes for requests never sent");
        assertThat(run.exit()).as(run.output()).isZero();
    }
}
