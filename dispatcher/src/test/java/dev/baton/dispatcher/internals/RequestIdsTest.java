package dev.baton.dispatcher.internals;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class RequestIdsTest {

    @Test
    void shouldHandOutIdsInTheUuidFormOfAVersion8RfcVariantUuid() {
        String id = new RequestIds().next();

        UUID parsed = UUID.fromString(id);
        assertThat(parsed.toString()).isEqualTo(id);
        assertThat(parsed.version()).isEqualTo(8);
        assertThat(parsed.variant()).isEqualTo(2);
    }

    @Test
    void shouldNeverRepeatAnIdWithinOneInstance() {
        RequestIds ids = new RequestIds();
        Set<String> seen = new HashSet<>();

        for (int i = 0; i < 100_000; i++) {
            assertThat(seen.add(ids.next())).as("id %d", i).isTrue();
        }
    }

    @Test
    void shouldNeverRepeatAnIdAcrossThreadsSharingAnInstance() throws InterruptedException {
        RequestIds ids = new RequestIds();
        Set<String> seen = ConcurrentHashMap.newKeySet();
        ExecutorService threads = Executors.newFixedThreadPool(4);
        for (int t = 0; t < 4; t++) {
            threads.execute(() -> {
                for (int i = 0; i < 25_000; i++) {
                    seen.add(ids.next());
                }
            });
        }
        threads.shutdown();
        assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();

        assertThat(seen).hasSize(100_000);
    }

    @Test
    void shouldGiveTwoInstancesDifferentIdsFromTheFirst() {
        Random seeds = new Random(29);
        RequestIds first = new RequestIds(seeds);
        RequestIds second = new RequestIds(seeds);
        Set<String> firsts = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            firsts.add(first.next());
        }

        for (int i = 0; i < 10_000; i++) {
            assertThat(firsts).doesNotContain(second.next());
        }
    }

    @Test
    void shouldKeepTheVariantWhenTheCounterWrapsItsSixtyTwoBits() {
        Random seed = new Random(0) {
            private int calls;

            @Override
            public long nextLong() {
                return calls++ == 0 ? 0L : 0x3FFF_FFFF_FFFF_FFFFL;
            }
        };
        RequestIds ids = new RequestIds(seed);

        assertThat(UUID.fromString(ids.next()).variant()).isEqualTo(2);
        assertThat(UUID.fromString(ids.next()).variant()).isEqualTo(2);
    }
}
