package dev.baton.streams.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import dev.baton.schemas.SiteKey;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The index on a real RocksDB store: what its scan floor, lazy expiry removal and memory tier must never lose. */
class DeadlineIndexTest {

    @TempDir
    Path stateDir;
    private KeyValueStore<Bytes, byte[]> store;
    private DeadlineIndex index;

    @BeforeEach
    void openStore() {
        store = RocksDbStores.open("deadlines", stateDir);
        index = new DeadlineIndex(store);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void shouldFindAnExpiryArmedInThePastAfterLaterScans() {
        index.arm(site("a"), DeadlineKind.EXPIRE, 1_000);
        assertThat(fire(2_000)).containsExactly(site("a"));
        assertThat(fire(3_000)).isEmpty();

        index.arm(site("b"), DeadlineKind.EXPIRE, 1_500); // behind what the scans have covered

        assertThat(fire(3_000)).containsExactly(site("b"));
    }

    @Test
    void shouldPickUpAFullBatchAtTheMillisecondItStopped() {
        index.arm(site("a"), DeadlineKind.EXPIRE, 1_000);
        index.arm(site("b"), DeadlineKind.EXPIRE, 1_000);
        index.arm(site("c"), DeadlineKind.EXPIRE, 1_000);
        index.arm(site("d"), DeadlineKind.EXPIRE, 1_001);

        assertThat(fire(5_000, 2)).containsExactly(site("a"), site("b"));
        assertThat(fire(5_000, 2)).containsExactly(site("c"), site("d"));
        assertThat(fire(5_000, 2)).isEmpty();
    }

    @Test
    void shouldFireLiveDeadlinesOfOneMillisecondByKindThenSite() {
        index.arm(site("b"), DeadlineKind.START_TO_CLOSE, 1_000);
        index.arm(site("c"), DeadlineKind.HEARTBEAT, 1_000);
        index.arm(site("a"), DeadlineKind.START_TO_CLOSE, 1_000);
        index.arm(site("d"), DeadlineKind.HEARTBEAT, 999);
        index.arm(site("a"), DeadlineKind.HEARTBEAT, 1_000);

        assertThat(fire(1_000)).containsExactly(site("d"), site("a"), site("c"), site("a"), site("b"));
    }

    @Test
    void shouldLeaveFutureDeadlinesOfBothTiersForLaterScans() {
        index.arm(site("a"), DeadlineKind.HEARTBEAT, 1_000);
        index.arm(site("b"), DeadlineKind.HEARTBEAT, 9_000);
        index.arm(site("c"), DeadlineKind.EXPIRE, 2_000);
        index.arm(site("d"), DeadlineKind.EXPIRE, 9_500);

        assertThat(fire(5_000)).containsExactly(site("a"), site("c"));
        assertThat(fire(8_999)).isEmpty();
        assertThat(fire(9_000)).containsExactly(site("b"));
        assertThat(fire(10_000)).containsExactly(site("d"));
    }

    @Test
    void shouldForgetADisarmedLiveDeadlineButReturnADisarmedExpiryForItsRowToBeChecked() {
        index.arm(site("a"), DeadlineKind.HEARTBEAT, 1_000);
        index.arm(site("a"), DeadlineKind.HEARTBEAT, 4_000); // moved by a heartbeat
        index.disarm(site("a"), DeadlineKind.HEARTBEAT, 1_000);
        index.arm(site("b"), DeadlineKind.EXPIRE, 2_000);
        index.disarm(site("b"), DeadlineKind.EXPIRE, 2_000);

        assertThat(fire(3_000)).as("the stale expiry is returned; no store delete ahead of now").containsExactly(site("b"));
        assertThat(fire(5_000)).containsExactly(site("a"));
    }

    @Test
    void shouldScanExpiriesFromTheStartWhenATaskStartsAgain() {
        index.arm(site("a"), DeadlineKind.EXPIRE, 1_000);
        index.arm(site("b"), DeadlineKind.EXPIRE, 2_000);
        assertThat(fire(1_500)).containsExactly(site("a"));
        index.arm(site("c"), DeadlineKind.EXPIRE, 1_200);

        index.commitStep();
        DeadlineIndex restarted = new DeadlineIndex(store); // entries kept by the local store

        assertThat(restarted.due(3_000, 3_000, 10)).extracting(DeadlineIndex.Due::site).containsExactly(site("c"), site("b"));
    }

    @Test
    void shouldForgetAnAbortedStep() {
        index.arm(site("a"), DeadlineKind.HEARTBEAT, 1_000);
        index.arm(site("b"), DeadlineKind.EXPIRE, 1_000);
        index.abortStep();

        assertThat(fire(5_000)).isEmpty();
    }

    @Test
    void shouldHoldDeadlinesThatWaitForReportsUntilTheReportsAreRead() {
        index.arm(site("a"), DeadlineKind.HEARTBEAT, 1_000);
        index.arm(site("b"), DeadlineKind.RETRY, 1_000);
        index.commitStep();

        assertThat(index.awaitsReports(2_000, 500)).as("a heartbeat deadline passed, reports read only to 500").isTrue();
        assertThat(fire(2_000, 500, 100)).as("only the retry fires").containsExactly(site("b"));
        assertThat(fire(2_000, 1_000, 100)).as("the heartbeat fires once reports to its instant are read").containsExactly(site("a"));
        assertThat(index.awaitsReports(2_000, 1_000)).isFalse();
    }

    /** One punctuation: the due entries, each removed as the processor does. */
    private List<SiteKey> fire(long now) {
        return fire(now, 100);
    }

    private List<SiteKey> fire(long now, int limit) {
        return fire(now, now, limit);
    }

    private List<SiteKey> fire(long now, long reportsRead, int limit) {
        index.commitStep();
        List<DeadlineIndex.Due> due = index.due(now, reportsRead, limit);
        due.forEach(index::remove);
        index.commitStep();
        return due.stream().map(DeadlineIndex.Due::site).toList();
    }

    private static SiteKey site(String workflow) {
        return new SiteKey("ns", workflow, "1");
    }
}
