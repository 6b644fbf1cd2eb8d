package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class SlotsTest {

    private final Slots slots = new Slots(3);

    @Test
    void shouldTakeNoMoreThanAreFree() {
        assertThat(slots.tryTake(2)).isEqualTo(2);
        assertThat(slots.tryTake(2)).isEqualTo(1);
        assertThat(slots.tryTake(1)).isZero();
        assertThat(slots.free()).isZero();
    }

    @Test
    void shouldWakeAWaiterWhenEnoughAreGivenBack() throws Exception {
        slots.tryTake(3);
        CompletableFuture<Boolean> twoFree = CompletableFuture.supplyAsync(() -> awaitFree(2, Duration.ofSeconds(10)));

        slots.giveBack(1);
        slots.giveBack(1);

        assertThat(twoFree.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(slots.free()).as("waiting takes nothing").isEqualTo(2);
    }

    @Test
    void shouldStopWaitingAtTheTimeout() throws Exception {
        slots.tryTake(3);

        assertThat(slots.awaitFree(1, Duration.ofMillis(20))).isFalse();
    }

    @Test
    void shouldRefuseASlotGivenBackTwice() {
        slots.tryTake(1);
        slots.giveBack(1);

        assertThatThrownBy(() -> slots.giveBack(1)).isInstanceOf(IllegalStateException.class)
                .hasMessage("free slots must be <= capacity 3, giving back 1 would make 4");
    }

    @Test
    void shouldRefuseAZeroCapacity() {
        assertThatThrownBy(() -> new Slots(0)).hasMessage("slot capacity must be >= 1, was 0");
    }

    private boolean awaitFree(int wanted, Duration timeout) {
        try {
            return slots.awaitFree(wanted, timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
