package dev.baton.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import dev.baton.cli.CliRun;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.morsel.kafka.TopicScan;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import org.junit.jupiter.api.Test;

/**
 * Adversary (adv22o): a site key's parts may hold any character but are bounded in length (InputValidator), control
 * characters included, and the operator commands printed them raw in their tables. A dispatcher's workflow id carrying a
 * newline and an ANSI "cursor up, erase line" made {@code baton replay} print a forged dangling line and erase a real one on
 * the operator's terminal (and lets a site hide from a reading of the report). Table output must show such characters
 * escaped; JSON output is already escaped by Jackson.
 */
class Adv22oHostileKeyPrintIT {

    private static final String HOSTILE = "w\u001b[1A\u001b[2K\ndangling  shop/forged/site (attempt 1, queue later, request r)";

    @Test
    void shouldPrintControlCharactersOfSiteKeysEscaped() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(2, List.of("later"))) {
            DispatchClient client = cluster.client("adv22o-print", o -> { });
            client.dispatch(ActivityRequest.builder().site("shop", HOSTILE, "charge").queue("later").activityType("charge")
                    .input("1".getBytes(UTF_8), "text/plain").build());
            await().atMost(Duration.ofSeconds(60)).until(() -> TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.tasks("later")).size() == 1);
            cluster.wipeStreamsState();

            CliRun replay = CliRun.of("replay", "--bootstrap-servers", cluster.bootstrapServers(), "--threads", "1");
            assertThat(replay.exit()).as(replay.output()).isZero();
            assertThat(replay.printed()).as(replay.printed()).doesNotContain("\u001b").doesNotContain("\ndangling  shop/forged/site");
            assertThat(replay.printed().lines().filter(l -> l.startsWith("dangling  "))).hasSize(1);

            CliRun history = CliRun.of("history", "--workflow", HOSTILE, "--bootstrap-servers", cluster.bootstrapServers());
            assertThat(history.exit()).as(history.output()).isZero();
            assertThat(history.printed()).contains("DISPATCHED").doesNotContain("\u001b");
        }
    }
}
