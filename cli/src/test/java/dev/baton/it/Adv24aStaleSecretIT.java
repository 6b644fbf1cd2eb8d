package dev.baton.it;

import static dev.baton.it.EngineBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.morsel.node.EngineNode;
import dev.baton.morsel.node.ExchangeSecret;
import dev.baton.morsel.node.protocol.ScanStep;
import dev.baton.morsel.node.protocol.Split;
import dev.baton.testkit.LocalCluster;
import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;

/**
 * Adversary round 24 (h/adv24a), finding 6: a node remembers each exchange's secret by the exchange's name. A job run
 * again under its id deletes its exchange and creates it again with a new secret; a node that served the earlier run
 * still accepts a step carrying the earlier run's secret against the new exchange without reading it (the cache hit
 * never looks at the exchange). A step of the earlier run still live in Baton (its job killed, its leftover exchange
 * deleted by the operator, the job run again) runs against the new run's exchange, and whoever holds an old run's
 * secret keeps it across every later run of that id. A node now remembers secrets by the exchange's topic id.
 */
class Adv24aStaleSecretIT {

    private static final String SOURCE = "adv24a-stale-src";

    @Test
    void anEarlierRunsSecretIsRefusedByTheExchangeCreatedAgainUnderItsName() throws Exception {
        try (LocalCluster cluster = LocalCluster.start(3, List.of(EngineNode.QUEUE))) {
            String exchange = BatonTopics.EXCHANGE_PREFIX + "nightly";
            try (Admin admin = Admin.create(cluster.clientConfig())) {
                admin.createTopics(Set.of(new NewTopic(SOURCE, 1, (short) 1), new NewTopic(exchange, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(cluster.clientConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
                for (long i = 0; i < 10; i++) {
                    p.send(new ProducerRecord<>(SOURCE, 0, bytes(i), bytes(i)));
                }
            }
            String earlier = ExchangeSecret.create();
            ExchangeSecret.write(cluster.clientConfig(), exchange, earlier); // the earlier run
            try (EngineNode node = EngineNode.start("adv24a-stale", cluster.clientConfig(), 1);
                 DispatchClient client = cluster.client("adv24a-stale", o -> { })) {
                assertThat(scan(client, "earlier", earlier).completed()).as("the earlier run's own scan").isTrue();

                // the earlier run ends (its exchange deleted); the job runs again under its id, with a new secret
                try (Admin admin = Admin.create(cluster.clientConfig())) {
                    admin.deleteTopics(Set.of(exchange)).all().get(30, TimeUnit.SECONDS);
                    await().atMost(Duration.ofSeconds(30)).until(() -> !admin.listTopics().names().get().contains(exchange));
                    admin.createTopics(Set.of(new NewTopic(exchange, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
                }
                ExchangeSecret.write(cluster.clientConfig(), exchange, ExchangeSecret.create());

                ActivityOutcome stale = scan(client, "stale", earlier);
                assertThat(stale.completed()).as("a step with the earlier run's secret, against the new exchange: " + stale).isFalse();
            }
        }
    }

    private static ActivityOutcome scan(DispatchClient client, String id, String secret) throws Exception {
        ScanStep step = ScanStep.newBuilder().setVersion(2).setJob("nightly").setExchangePartitions(1)
                .setSplit(new Split(SOURCE, 0, 0L, 10L)).setSecret(secret).build();
        return client.dispatch(ActivityRequest.builder().site("engine", "nightly", id).queue(EngineNode.QUEUE).activityType(EngineNode.SCAN)
                .input(bytes(step.toByteBuffer()), "application/vnd.baton.engine-step+avro").heartbeat(Duration.ofSeconds(2))
                .retry(ActivityRequest.RetryOptions.of(Duration.ofSeconds(1), 0)).build()).get(2, TimeUnit.MINUTES);
    }
}
