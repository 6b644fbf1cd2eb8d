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
    void shouldTuneForLatencyByDefault() {
        StreamsAppConfig config = new StreamsAppConfig(Map.of());
        Properties p = config.streamsProperties();

        assertThat(config.commitPacing()).isEqualTo(CommitPacing.INTERVAL);
        assertThat(p).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 10L)
                .containsEntry(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1)
                .containsEntry(StreamsConfig.POLL_MS_CONFIG, 10L)
                .containsEntry(StreamsConfig.producerPrefix("linger.ms"), 100L)
                .doesNotContainKey("commit.pacing");
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

    @Test
    void shouldLetTheUserSetTheSessionAndTransactionTimeouts() {
        StreamsConfig streams = new StreamsConfig(new StreamsAppConfig(Map.of("main.consumer.session.timeout.ms", "20000",
                "producer.transaction.timeout.ms", "30000")).streamsProperties());

        assertThat(streams.getMainConsumerConfigs("g", "c", 0)).containsEntry("session.timeout.ms", "20000");
        assertThat(streams.getProducerConfigs("p")).containsEntry("transaction.timeout.ms", "30000");
    }

    @Test
    void shouldKeepKafkaStreamsTimerOnlyAsASafetyNetWithPacedCommits() {
        Properties p = new StreamsAppConfig(Map.of("commit.pacing", "returns", "commit.interval.ms", "20")).streamsProperties();

        // The processors ask for every commit; the loop wakes often enough for the fallback.
        assertThat(p).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1_000L)
                .containsEntry(StreamsConfig.POLL_MS_CONFIG, 10L)
                .containsEntry(StreamsConfig.producerPrefix("linger.ms"), 200L);
    }

    @Test
    void shouldCommitAtTheProfilesIntervalUnderAtLeastOnceUnlessTold() {
        Map<String, String> alos = Map.of("processing.guarantee", "at_least_once", "token.key", "MDEyMzQ1Njc4OWFiY2RlZg==");
        Properties p = new StreamsAppConfig(alos).streamsProperties();

        // The profile's interval: a longer one would only widen what a crash reads again.
        assertThat(p).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 10L)
                .containsEntry(StreamsConfig.POLL_MS_CONFIG, 10L)
                .containsEntry(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, StreamsAppConfig.SITES_CACHE_BYTES);
        Map<String, String> told = new HashMap<>(alos);
        told.put("commit.interval.ms", "5");
        assertThat(new StreamsAppConfig(told).streamsProperties()).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 5L)
                .containsEntry(StreamsConfig.POLL_MS_CONFIG, 5L);
        told.put("commit.interval.ms", "20000");
        assertThat(new StreamsAppConfig(told).streamsProperties()).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 20_000L)
                .containsEntry(StreamsConfig.POLL_MS_CONFIG, 10L);
    }

    @Test
    void shouldRefuseAnUnknownPacingNamingIt() {
        assertThatThrownBy(() -> new StreamsAppConfig(Map.of("commit.pacing", "asap")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("asap")
                .hasMessageContaining("commit.pacing")
                .hasMessageContaining("returns")
                .hasMessageContaining("interval");
    }

    @Test
    void shouldTakeTheThroughputProfilesDefaults() {
        StreamsAppConfig config = new StreamsAppConfig(Map.of("profile", "throughput"));
        Properties p = config.streamsProperties();

        assertThat(config.profile()).isEqualTo(Profile.THROUGHPUT);
        assertThat(config.commitPacing()).isEqualTo(CommitPacing.INTERVAL);
        assertThat(p).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100L)
                .containsEntry(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 2)
                .containsEntry(StreamsConfig.POLL_MS_CONFIG, 100L)
                .doesNotContainKey("profile");
    }

    @Test
    void shouldLetAnExplicitKeyWinOverItsProfile() {
        Properties p = new StreamsAppConfig(Map.of("profile", "throughput", "commit.interval.ms", "20", "num.stream.threads", "1"))
                .streamsProperties();

        assertThat(p).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 20L)
                .containsEntry(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    }

    @Test
    void shouldRefuseAnUnknownProfileNamingIt() {
        assertThatThrownBy(() -> new StreamsAppConfig(Map.of("profile", "fast")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("fast")
                .hasMessageContaining("profile")
                .hasMessageContaining("latency")
                .hasMessageContaining("throughput");
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
