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
 * Adversary (adv22o): {@code baton replay} reads the streams app's live sites from {@code <application-id>-sites-changelog}
 * and took a missing changelog for wiped state. With a wrong {@code --application-id} (the streams app runs under another
 * one; the flag defaults to {@code baton-streams}) every waiting site was reported "dangling, 0 live", and
 * {@code --redispatch} re-sent every one of them to a healthy streams app. Misuse must fail fast naming the value: no
 * streams app of that id has ever read {@code baton.dispatch} (no consumer group, no changelog).
 */
class Adv22oWrongApplicationIdIT {

    @Test
    void shouldRefuseAnApplicationIdNoStreamsAppRunsUnder() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(2, List.of("later"))) {
            DispatchClient client = cluster.client("adv22o-appid", o -> { });
            client.dispatch(ActivityRequest.builder().site("shop", "order-3", "charge").queue("later").activityType("charge")
                    .input("1".getBytes(UTF_8), "text/plain").build());
            await().atMost(Duration.ofSeconds(60)).until(() -> TopicScan.readAll(cluster.bootstrapServers(), BatonTopics.tasks("later")).size() == 1);

            CliRun right = CliRun.of("replay", "--bootstrap-servers", cluster.bootstrapServers(), "--threads", "1");
            assertThat(right.exit()).as(right.output()).isZero();
            assertThat(right.output()).contains("1 live in the streams app, 0 dangling");

            CliRun wrong = CliRun.of("replay", "--bootstrap-servers", cluster.bootstrapServers(), "--threads", "1", "--redispatch",
                    "--application-id", "prod-baton");
            assertThat(wrong.exit()).as(wrong.output()).isNotZero();
            assertThat(wrong.output()).contains("prod-baton").doesNotContain("redispatch re-sent");
        }
    }
}
