package dev.baton.streams.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

/**
 * A fence against a broker that accepts connections and never answers (a hung coordinator) gives up
 * soon after max.block.ms, not when its producer's 30 s request timeout lets it close: each fence holds
 * up the fencer's only thread, and the next abandoned id behind it.
 */
class SilentCoordinatorFenceTest {

    @Test
    void shouldGiveUpAFenceSoonAfterMaxBlock() throws Exception {
        List<Socket> held = new CopyOnWriteArrayList<>();
        try (ServerSocket silent = new ServerSocket(0)) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        held.add(silent.accept());
                    }
                } catch (Exception closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            Map<String, Object> settings = new HashMap<>(Map.of("bootstrap.servers", "localhost:" + silent.getLocalPort()));

            long start = System.nanoTime();
            AbandonedTransactionFencer.fence(settings, "baton-streams-09a7b565-fdff-449e-a841-667219c70ffe-1", Duration.ofSeconds(3),
                    Duration.ofSeconds(2));
            long tookMs = (System.nanoTime() - start) / 1_000_000;

            // max.block.ms 2 s: about 3 s now; the close used to wait out the 30 s request timeout whatever max.block.ms was
            assertThat(tookMs).as("ms").isLessThan(10_000);
            assertThat(held).isNotEmpty();
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }
}
