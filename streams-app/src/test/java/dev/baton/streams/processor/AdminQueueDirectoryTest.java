package dev.baton.streams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class AdminQueueDirectoryTest {

    private static final long REFRESH_MS = 5_000;

    private final AtomicLong nanos = new AtomicLong();
    /** Listings after the first, each one round trip to the cluster, answered only when the test says so. */
    private final List<CompletableFuture<Set<String>>> pending = new ArrayList<>();

    /** A directory whose first listing (in its constructor) finds {@code topics}. */
    private AdminQueueDirectory directoryKnowing(String... topics) {
        boolean[] first = {true};
        return new AdminQueueDirectory(() -> {
            if (first[0]) {
                first[0] = false;
                return CompletableFuture.completedFuture(Set.of(topics));
            }
            CompletableFuture<Set<String>> f = new CompletableFuture<>();
            pending.add(f);
            return f;
        }, () -> { }, REFRESH_MS, nanos::get);
    }

    private void advanceMillis(long ms) {
        nanos.addAndGet(ms * 1_000_000);
    }

    @Test
    void shouldAnswerAKnownQueueFromAStaleListAndRefreshItInTheBackground() {
        AdminQueueDirectory directory = directoryKnowing("baton.tasks.payments");
        advanceMillis(REFRESH_MS + 1);

        // The refresh is not answered yet: a dispatch to a known queue must not wait for it.
        assertThat(directory.isDeclared("payments")).isTrue();
        assertThat(pending).hasSize(1);
        // One refresh at a time, however many dispatches come meanwhile.
        assertThat(directory.isDeclared("payments")).isTrue();
        assertThat(pending).hasSize(1);

        pending.get(0).complete(Set.of("baton.tasks.payments", "baton.tasks.mail"));
        assertThat(directory.isDeclared("mail")).isTrue();
        assertThat(pending).hasSize(1);
    }

    @Test
    void shouldWaitForAFreshListOnlyForAnUnknownQueueAndAtMostOnceASecond() {
        List<Set<String>> answers = new ArrayList<>(List.of(Set.of("baton.tasks.payments"),
                Set.of("baton.tasks.payments", "baton.tasks.mail")));
        int[] calls = {0};
        AdminQueueDirectory directory = new AdminQueueDirectory(() -> {
            calls[0]++;
            return CompletableFuture.completedFuture(answers.size() > 1 ? answers.remove(0) : answers.get(0));
        }, () -> { }, REFRESH_MS, nanos::get);

        // Within a second of the last listing a miss does not ask again.
        assertThat(directory.isDeclared("mail")).isFalse();
        assertThat(calls[0]).isEqualTo(1);

        // Later it waits for a fresh list and finds the queue declared meanwhile.
        advanceMillis(1_001);
        assertThat(directory.isDeclared("mail")).isTrue();
        assertThat(calls[0]).isEqualTo(2);
    }

    @Test
    void shouldKeepTheKnownListWhenARefreshFails() {
        AdminQueueDirectory directory = directoryKnowing("baton.tasks.payments");
        advanceMillis(REFRESH_MS + 1);
        assertThat(directory.isDeclared("payments")).isTrue();

        pending.get(0).completeExceptionally(new IllegalStateException("broker gone"));
        assertThat(directory.isDeclared("payments")).isTrue();
        // The failed attempt counts as a refresh: the next one waits out the interval again.
        assertThat(pending).hasSize(1);
        advanceMillis(REFRESH_MS + 1);
        assertThat(directory.isDeclared("payments")).isTrue();
        assertThat(pending).hasSize(2);
    }
}
