package dev.baton.morsel.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.baton.morsel.kafka.OffsetRange;
import org.junit.jupiter.api.Test;

class JobStepsTest {

    private static final OffsetRange SPLIT = new OffsetRange("engine/input", 3, 20_000, 40_000);
    private static final String SECRET = ExchangeSecret.create();

    @Test
    void shouldReadBackTheScanStepItWrote() {
        JobSteps.Scan scan = new JobSteps.Scan("job-1", 6, SPLIT, SECRET);

        assertThat(JobSteps.decodeScan(JobSteps.encodeScan(scan))).isEqualTo(scan);
    }

    @Test
    void shouldKeyTheManifestBySplitAsTheExchangeHeadersNameIt() {
        Map<OffsetRange, String> accepted = new LinkedHashMap<>();
        accepted.put(SPLIT, "2.1");
        accepted.put(new OffsetRange("engine/input", 0, 0, 20_000), "1.1");

        JobSteps.Merge merge = JobSteps.decodeMerge(JobSteps.encodeMerge("job-1", 4, accepted, SECRET));

        assertThat(merge.job()).isEqualTo("job-1");
        assertThat(merge.secret()).isEqualTo(SECRET);
        assertThat(merge.toString()).as("a step named in a log or a failure").doesNotContain(SECRET);
        assertThat(merge.exchangePartition()).isEqualTo(4);
        assertThat(merge.acceptedBySplit()).containsExactly(Map.entry("engine/input/3/20000/40000", "2.1"),
                Map.entry("engine/input/0/0/20000", "1.1"));
    }

    @Test
    void shouldReadBackResults() {
        Map<Long, long[]> rows = new LinkedHashMap<>();
        rows.put(-7L, new long[] {Long.MIN_VALUE, 1});
        rows.put(42L, new long[] {1_000, 3});

        assertThat(JobSteps.decodeScanDone(JobSteps.encodeScanDone("3.2"))).isEqualTo("3.2");
        assertThat(JobSteps.decodeRows(JobSteps.encodeRows(rows))).containsOnlyKeys(-7L, 42L)
                .hasEntrySatisfying(-7L, v -> assertThat(v).containsExactly(Long.MIN_VALUE, 1))
                .hasEntrySatisfying(42L, v -> assertThat(v).containsExactly(1_000, 3));
    }

    @Test
    void shouldRefuseTheOldTextProtocolNamingWhatItExpected() {
        byte[] text = ("job-1\n6\n" + SPLIT).getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> JobSteps.decodeScan(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not an engine scan step").hasMessageContaining(JobSteps.CONTENT_TYPE);
    }

    @Test
    void shouldRefuseAMergeStepWhereAScanStepIsExpected() {
        byte[] merge = JobSteps.encodeMerge("job-1", 0, Map.of(SPLIT, "1.1"), SECRET);

        assertThatThrownBy(() -> JobSteps.decodeScan(merge)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not an engine scan step");
    }

    @Test
    void shouldRefuseAScanStepOfAnotherProtocolVersionNamingBothVersions() {
        byte[] newer = JobSteps.encodeScan(new JobSteps.Scan("job-1", 6, SPLIT, SECRET), JobSteps.PROTOCOL_VERSION + 1);

        assertThatThrownBy(() -> JobSteps.decodeScan(newer)).isInstanceOf(JobProtocolException.class)
                .hasMessageContaining("job protocol version " + (JobSteps.PROTOCOL_VERSION + 1))
                .hasMessageContaining("speaks version " + JobSteps.PROTOCOL_VERSION);
    }

    @Test
    void shouldReadTheVersionOfAStepWhoseSchemaThisNodeDoesNotKnow() {
        byte[] step = JobSteps.encodeScan(new JobSteps.Scan("job-1", 6, SPLIT, SECRET), 7);
        step[2] ^= 0x55; // another fingerprint: a schema this node was not built with

        assertThatThrownBy(() -> JobSteps.decodeScan(step)).isInstanceOf(JobProtocolException.class)
                .hasMessageContaining("job protocol version 7");
    }
}
