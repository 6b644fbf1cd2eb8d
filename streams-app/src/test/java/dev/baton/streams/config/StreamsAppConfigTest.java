package dev.baton.streams.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

class StreamsAppConfigTest {

    @Test
    void shouldCommitAsSoonAsTheInputIsDrainedByDefault() {
        StreamsAppConfig config = new StreamsAppConfig(Map.of());
        Properties p = config.streamsProperties();

        assertThat(config.commitPacing()).isEqualTo(CommitPacing.DRAINED);
        // Kafka Streams' timer is the pace under a backlog; the drain asks for the commits before it.
        assertThat(p).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100L)
                .containsEntry(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1)
                .containsEntry(StreamsConfig.POLL_MS_CONFIG, 50L)
                .containsEntry(StreamsConfig.mainConsumerPrefix("fetch.max.wait.ms"), 100)
                .containsEntry(StreamsConfig.producerPrefix("linger.ms"), 1_000L)
                .doesNotContainKey("commit.pacing");
    }

    @Test
    void shouldUseKafkaStreamsTimerWhenToldWithoutWaitingInAPollPastIt() {
        StreamsAppConfig config = new StreamsAppConfig(Map.of("commit.pacing", "interval", "commit.interval.ms", "10"));

        assertThat(config.commitPacing()).isEqualTo(CommitPacing.INTERVAL);
        assertThat(config.streamsProperties()).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 10L)
                .containsEntry(StreamsConfig.POLL_MS_CONFIG, 10L)
                .containsEntry(StreamsConfig.producerPrefix("linger.ms"), 100L);
        assertThat(new StreamsAppConfig(Map.of("commit.pacing", "interval")).streamsProperties())
                .as("a longer interval is no reason to wake later").containsEntry(StreamsConfig.POLL_MS_CONFIG, 10L);
    }

    @Test
    void shouldHandACrashedInstancesTasksOverWithinSecondsByDefault() {
        StreamsConfig streams = new StreamsConfig(new StreamsAppConfig(Map.of()).streamsProperties());

        // What the consumer is really given, after Streams' own defaults are applied.
        assertThat(streams.getMainConsumerConfigs("g", "c", 0)).containsEntry("session.timeout.ms", 6_000);
    }

    @Test
    void shouldFenceAbandonedTransactionsOnlyWellPastACommitInterval() {
        assertThat(new StreamsAppConfig(Map.of()).transactionFenceAfterMs()).isEqualTo(3_000);
        assertThat(new StreamsAppConfig(Map.of("transaction.fence.after.ms", "0")).transactionFenceAfterMs()).isZero();
        // a healthy instance commits every interval: raised to three of them
        assertThat(new StreamsAppConfig(Map.of("commit.interval.ms", "2000")).transactionFenceAfterMs()).isEqualTo(6_000);
        // no transactions to fence
        assertThat(new StreamsAppConfig(Map.of("processing.guarantee", "at_least_once",
                "token.key", "MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=")).transactionFenceAfterMs()).isZero();
    }

    /**
     * h/adv26: under exactly-once a commit that timed out after Kafka's 60 s took Kafka Streams 4.4 down a path that lost
     * the committed site rows (their callers never answered); one that blocks through the outage does not.
     */
    @Test
    void shouldLetAnExactlyOnceCommitWaitOutALongOutageAndLeaveAtLeastOnceAtKafkasDefault() {
        StreamsConfig exactlyOnce = new StreamsConfig(new StreamsAppConfig(Map.of()).streamsProperties());
        StreamsConfig atLeastOnce = new StreamsConfig(new StreamsAppConfig(Map.of("processing.guarantee", "at_least_once",
                "token.key", "MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=")).streamsProperties());

        assertThat(exactlyOnce.getProducerConfigs("p")).containsEntry("max.block.ms", 600_000L);
        assertThat(Long.parseLong(exactlyOnce.getProducerConfigs("p").get("transaction.timeout.ms").toString()))
                .as("the broker aborts a transaction left open by a blocked commit long before the commit gives up").isLessThan(600_000L);
        assertThat(atLeastOnce.getProducerConfigs("p")).doesNotContainKey("max.block.ms");
        assertThat(new StreamsConfig(new StreamsAppConfig(Map.of("producer.max.block.ms", "90000")).streamsProperties())
                .getProducerConfigs("p")).as("a user's setting wins").containsEntry("max.block.ms", "90000");
    }

    @Test
    void shouldLetTheUserSetTheSessionAndTransactionTimeouts() {
        StreamsConfig streams = new StreamsConfig(new StreamsAppConfig(Map.of("main.consumer.session.timeout.ms", "20000",
                "producer.transaction.timeout.ms", "30000")).streamsProperties());

        assertThat(streams.getMainConsumerConfigs("g", "c", 0)).containsEntry("session.timeout.ms", "20000");
        assertThat(streams.getProducerConfigs("p")).containsEntry("transaction.timeout.ms", "30000");
    }

    @Test
    void shouldCommitOnKafkaStreamsTimerUnderAtLeastOnce() {
        Map<String, String> alos = Map.of("processing.guarantee", "at_least_once", "token.key", "MDEyMzQ1Njc4OWFiY2RlZg==");
        StreamsAppConfig config = new StreamsAppConfig(alos);

        // No answer waits for a commit: the timer paces them, whatever the pacing says.
        assertThat(config.commitPacing()).isEqualTo(CommitPacing.INTERVAL);
        assertThat(config.streamsProperties()).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100L)
                .containsEntry(StreamsConfig.POLL_MS_CONFIG, 10L)
                .containsEntry(StreamsConfig.producerPrefix("linger.ms"), 1L)
                .containsEntry(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);
        Map<String, String> told = new HashMap<>(alos);
        told.put("commit.interval.ms", "5");
        assertThat(new StreamsAppConfig(told).streamsProperties()).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 5L)
                .containsEntry(StreamsConfig.POLL_MS_CONFIG, 5L);
    }

    @Test
    void shouldCacheTheSitesStoreOnlyUnderExactlyOnceWhenTheUserGivesTheCacheMemory() {
        String alo = "at_least_once";
        String key = "MDEyMzQ1Njc4OWFiY2RlZg==";

        assertThat(new StreamsAppConfig(Map.of()).sitesCached()).as("exactly-once by default").isFalse();
        assertThat(new StreamsAppConfig(Map.of("statestore.cache.max.bytes", "33554432")).sitesCached()).isTrue();
        assertThat(new StreamsAppConfig(Map.of("statestore.cache.max.bytes", 0L)).sitesCached()).isFalse();
        assertThat(new StreamsAppConfig(Map.of("processing.guarantee", alo, "token.key", key, "statestore.cache.max.bytes", "33554432"))
                .sitesCached()).as("at-least-once never").isFalse();
    }

    @Test
    void shouldRefuseAnUnknownPacingNamingIt() {
        assertThatThrownBy(() -> new StreamsAppConfig(Map.of("commit.pacing", "asap")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("asap")
                .hasMessageContaining("commit.pacing")
                .hasMessageContaining("drained")
                .hasMessageContaining("interval");
    }

    @Test
    void shouldRefuseTheRemovedProfileKeySayingWhatToSetInstead() {
        assertThatThrownBy(() -> new StreamsAppConfig(Map.of("profile", "throughput")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("profile")
                .hasMessageContaining("throughput")
                .hasMessageContaining("commit.pacing=interval");
    }

    @Test
    void shouldAdvertiseTheStatusPortAsApplicationServer() {
        Properties p = new StreamsAppConfig(Map.of("status.port", 9402, "status.advertised.host", "streams-app-1")).streamsProperties();
        assertThat(p).containsEntry(StreamsConfig.APPLICATION_SERVER_CONFIG, "streams-app-1:9402");
        assertThat(new StreamsAppConfig(Map.of()).streamsProperties()).as("no port, nothing to advertise")
                .doesNotContainKey(StreamsConfig.APPLICATION_SERVER_CONFIG);
    }

    @Test
    void shouldKeepAnApplicationServerSetExplicitly() {
        StreamsAppConfig config = new StreamsAppConfig(Map.of("status.port", 9402, "application.server", "10.0.0.7:9400"));
        assertThat(config.applicationServer()).hasValueSatisfying(h -> assertThat(h.host() + ":" + h.port()).isEqualTo("10.0.0.7:9400"));
    }

    @Test
    void shouldRefuseAnApplicationServerThatIsNotHostAndPort() {
        assertThatThrownBy(() -> new StreamsAppConfig(Map.of("application.server", "no-port")).applicationServer())
                .isInstanceOf(ConfigException.class).hasMessageContaining("application.server").hasMessageContaining("no-port")
                .hasMessageContaining("host:port");
    }
}
