package dev.baton.streams.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import dev.baton.events.Timeouts;
import org.junit.jupiter.api.Test;

class QueueTimeoutsTest {

    @Test
    void shouldReadPerQueueKeysBesideTheAppsOwnQueueRefreshKey() {
        QueueTimeouts timeouts = QueueTimeouts.from(Map.of(StreamsAppConfig.QUEUE_REFRESH_MS_CONFIG, "600000",
                "queue.mail.schedule.to.start.ms", "1000"));

        assertThat(timeouts.resolve("mail", null).getScheduleToStartMillis()).isEqualTo(1_000L);
        assertThat(timeouts.resolve("refresh", null)).isNull();
    }

    @Test
    void shouldRefuseAnUnknownPerQueueKeyByName() {
        assertThatThrownBy(() -> QueueTimeouts.from(Map.of("queue.mail.schedule.to.start", "1000")))
                .hasMessageContaining("unknown per-queue key 'queue.mail.schedule.to.start'");
    }

    @Test
    void shouldLetTheActivitysOwnFieldWin() {
        QueueTimeouts timeouts = QueueTimeouts.from(Map.of("queue.mail.heartbeat.ms", "3000", "queue.mail.start.to.close.ms", "9000"));

        Timeouts resolved = timeouts.resolve("mail", new Timeouts(null, 5_000L, null, null));
        assertThat(resolved.getStartToCloseMillis()).isEqualTo(5_000L);
        assertThat(resolved.getHeartbeatMillis()).isEqualTo(3_000L);
    }
}
