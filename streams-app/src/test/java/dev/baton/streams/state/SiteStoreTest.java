package dev.baton.streams.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

import dev.baton.events.store.SiteState;
import dev.baton.events.store.SiteStatus;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.streams.names.TopologyNames;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store on a real RocksDB: the rows it keeps decoded must never answer differently from RocksDB. */
class SiteStoreTest {

    @TempDir
    Path stateDir;
    private KeyValueStore<Bytes, byte[]> rocks;
    private EventSerde<SiteState> serde;
    private SiteStore sites;

    @BeforeEach
    void openStore() {
        rocks = RocksDbStores.open("sites", stateDir);
        serde = EventSerde.of(SiteState.class, SchemaRegistry.forUrl("mem://" + UUID.randomUUID(), Map.of()));
        sites = new SiteStore(rocks, serde);
    }

    @AfterEach
    void closeStore() {
        rocks.close();
    }

    @Test
    void shouldReadBackTheLatestWrite() {
        sites.put(site("a"), state(1));
        sites.put(site("a"), state(2));

        assertThat(sites.get(site("a"))).hasValueSatisfying(s -> assertThat(s.getGeneration()).isEqualTo(2));
        assertThat(stored(site("a"))).as("staged until the step commits").isNull();
        sites.commitStep();
        assertThat(stored(site("a")).getGeneration()).isEqualTo(2);
    }

    @Test
    void shouldForgetTheWritesOfAnAbortedStep() {
        sites.put(site("a"), state(1));
        sites.commitStep();
        sites.put(site("a"), state(2));
        sites.delete(site("b"));

        sites.abortStep();

        assertThat(sites.get(site("a"))).hasValueSatisfying(s -> assertThat(s.getGeneration()).isEqualTo(1));
        assertThat(stored(site("a")).getGeneration()).isEqualTo(1);
    }

    @Test
    void shouldForgetADeletedRow() {
        sites.put(site("a"), state(1));
        sites.commitStep();
        sites.delete(site("a"));
        sites.commitStep();

        assertThat(sites.get(site("a"))).isEmpty();
        assertThat(rocks.get(key(site("a")))).isNull();
    }

    @Test
    void shouldReadRowsItDidNotWriteFromRocksDb() {
        rocks.put(key(site("restored")), serde.encode(TopologyNames.SITES_SUBJECT_TOPIC, state(7))); // as a changelog restore writes it

        assertThat(sites.get(site("restored"))).hasValueSatisfying(s -> assertThat(s.getGeneration()).isEqualTo(7));
        assertThat(sites.get(site("absent"))).isEmpty();
    }

    @Test
    void shouldStillFindRowsOlderThanTheKeptOnes() {
        int rows = SiteStore.LIVE_ROWS + 100;
        for (int i = 0; i < rows; i++) {
            sites.put(site("s" + i), state(i + 1));
            sites.commitStep();
        }

        for (int i : new int[] {0, 99, 100, rows - 1}) {
            assertThat(sites.get(site("s" + i))).as("site s%d", i).hasValueSatisfying(s -> assertThat(s.getGeneration()).isEqualTo(i + 1));
        }
    }

    @Test
    void shouldHandOutAKeptRowOnceSoAChangeNotPutBackIsNeverRead() {
        sites.put(site("a"), state(1));
        sites.commitStep();

        SiteState first = sites.get(site("a")).orElseThrow();
        assertThat(first).as("the committed row, kept decoded").isEqualTo(stored(site("a")));
        first.setGeneration(99); // changed by a rule that then decided not to write it
        sites.commitStep();

        assertThat(sites.get(site("a"))).hasValueSatisfying(s -> assertThat(s.getGeneration()).isEqualTo(1));
    }

    @Test
    void shouldNotKeepARowWhoseStepWasAborted() {
        sites.put(site("a"), state(1));
        sites.commitStep();
        SiteState row = sites.get(site("a")).orElseThrow();
        row.setGeneration(5);
        sites.put(site("a"), row);

        sites.abortStep();

        assertThat(sites.get(site("a"))).hasValueSatisfying(s -> assertThat(s.getGeneration()).isEqualTo(1));
    }

    @Test
    void shouldKeepTheRowAStepCommittedUntilItIsReadAgain() {
        sites.put(site("a"), state(1));
        sites.commitStep();
        SiteState row = sites.get(site("a")).orElseThrow();
        row.setGeneration(2);
        sites.put(site("a"), row);
        sites.commitStep();

        SiteState next = sites.get(site("a")).orElseThrow();
        assertThat(next.getGeneration()).isEqualTo(2);
        assertThat(next).isEqualTo(stored(site("a")));
    }

    @Test
    void shouldNotKeepAResolvedRowDecoded() {
        SiteState resolved = state(1);
        resolved.setState(SiteStatus.RESOLVED);
        sites.put(site("a"), resolved);
        sites.commitStep();

        SiteState read = sites.get(site("a")).orElseThrow();
        assertThat(read).isEqualTo(resolved).isNotSameAs(resolved);
    }

    @Test
    void shouldWriteARowAsItIsWhenTheStepCommits() {
        SiteState row = state(1);
        sites.put(site("a"), row);
        row.setGeneration(3);
        sites.commitStep();

        assertThat(stored(site("a")).getGeneration()).isEqualTo(3);
        assertThat(sites.get(site("a"))).hasValueSatisfying(s -> assertThat(s.getGeneration()).isEqualTo(3));
    }

    @Test
    void shouldReadACopyOfARowWrittenInTheSameStep() {
        sites.put(site("a"), state(1));
        sites.get(site("a")).orElseThrow().setGeneration(9);
        sites.commitStep();

        assertThat(stored(site("a")).getGeneration()).isEqualTo(1);
    }

    private SiteState stored(SiteKey site) {
        byte[] bytes = rocks.get(key(site));
        return bytes == null ? null : serde.decode(TopologyNames.SITES_SUBJECT_TOPIC, bytes);
    }

    private static Bytes key(SiteKey site) {
        return Bytes.wrap(site.toBytes());
    }

    private static SiteKey site(String activity) {
        return new SiteKey("ns", "run", activity);
    }

    private static SiteState state(int generation) {
        return SiteState.newBuilder().setState(SiteStatus.PENDING).setAttempt(1).setGeneration(generation).setRequestId("r")
                .setReplyKey("k").setIdempotencyKey("i").setQueue("q").setActivityType("t").setCreatedAtMillis(0)
                .setFirstRequestedAtMillis(0).build();
    }
}
