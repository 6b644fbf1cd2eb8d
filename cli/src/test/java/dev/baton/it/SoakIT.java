package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.CliRun;
import org.junit.jupiter.api.Test;

/**
 * The CI variant of the chaos soak: a few thousand activities over three worker processes and two
 * streams-app processes, while workers are killed every few seconds, one streams-app instance is
 * killed and restarted, and the broker is restarted. The full run is {@code baton soak} with its
 * defaults; its output is kept in docs/reliability/.
 */
class SoakIT {

    @Test
    void shouldResolveEveryActivityExactlyOnceThroughWorkerStreamsAppAndBrokerCrashes() {
        CliRun run = CliRun.of("soak", "--activities", "3000", "--rate", "150", "--kill-worker-every-s", "8", "--timeout-minutes", "4");

        assertThat(run.output()).contains("kill -9 worker", "kill -9 streams app streams-1", "restarted streams app streams-1",
                "broker started again on the same data dir", "3000 dispatched, 3000 resolved", "all invariants hold",
                "wrong outcomes    0");
        assertThat(run.exit()).as(run.output()).isZero();
    }
}
