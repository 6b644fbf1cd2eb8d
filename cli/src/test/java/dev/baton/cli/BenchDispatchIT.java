package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/** Runs the dispatch benchmark at toy size: it must complete and print every pipeline and the ratios (no timing asserted). */
class BenchDispatchIT {

    @Test
    void shouldRunBatonFirstWithCommitsOnKafkaStreamsTimer() {
        // The opt-in pacing (the default is measured by the other test): the run must finish the same way.
        // Baton measured before the raw echo (the other order is the other test's): the table still starts with the raw echo.
        CliRun run = CliRun.of("bench", "dispatch", "--rates", "50", "--seconds", "1", "--burst", "100", "--warm-up", "100", "--warm-up-seconds", "0",
                "--partitions", "3", "--streams-config", "commit.pacing=interval", "--commit-interval-ms", "10", "--guarantees", "exactly_once_v2",
                "--no-kafka-shape", "--baton-first");
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).doesNotContain("at-least-once  streams app", "kafka shape");
        assertThat(run.output()).contains("exactly-once   streams app: processing.guarantee=exactly_once_v2, commit.pacing=interval, commit.interval.ms=10, num.stream.threads=1",
                "hops           at    50/s (p50/p99 ms, n=50)");
        assertThat(run.output().indexOf("raw three-hop  warm-up")).as(run.output()).isGreaterThan(run.output().indexOf("exactly-once   warm-up"));
        assertThat(run.output()).containsPattern("side by side +raw three-hop +exactly-once")
                .containsPattern("cpu per activity \\(us\\) +[0-9]+ +[0-9]+ \\([0-9.]+x\\)")
                .containsPattern("cpu         in the bursts, per activity \\(us\\): exactly-once [0-9]+ = broker ");
    }

    @Test
    void shouldMeasureEveryPipelineAndPrintThemSideBySide() {
        CliRun run = CliRun.of("bench", "dispatch", "--rates", "50", "--seconds", "1", "--burst", "100", "--warm-up", "100", "--warm-up-seconds", "0", "--partitions", "3");
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("raw three-hop  warm-up: 100 activities", "exactly-once   warm-up: 100 activities",
                "at-least-once  warm-up: 100 activities", "at-least-once  warm-up burst: ", "at    50/s", "records per activity");
        // One table: a column per pipeline, each Baton figure with its ratio to the raw echo's.
        // Kafka alone in Baton's at-least-once shape comes second: its own column, and Baton's at-least-once against it.
        assertThat(run.output()).containsPattern("side by side +raw three-hop +kafka shape +exactly-once +at-least-once")
                .containsPattern("max sustained /s +[0-9]+ +[0-9]+ \\([0-9.]+\\) +[0-9]+ \\(0\\.[0-9]{2}\\) +[0-9]+ \\([0-9.]+\\)")
                .containsPattern("p50 at 50/s \\(ms\\) +[0-9.]+ +[0-9.]+ \\([0-9.]+x\\) +[0-9.]+ \\([0-9.]+x\\) +[0-9.]+ \\([0-9.]+x\\)")
                .containsPattern("records per activity +3 \\(by construction\\) +8\\.0 +[0-9]+\\.[0-9] +[0-9]+\\.[0-9]")
                .containsPattern("at-least-once against the kafka shape \\(Kafka's own work in the same shape\\): max sustained [0-9.]+ of it, "
                        + "cpu per activity [0-9.]+x");
        // The shape writes what Baton's at-least-once path writes for a short activity: 8 records, two of them row writes.
        assertThat(run.output()).containsPattern("records     kafka shape wrote 8\\.0 per activity in its topics and changelogs: "
                + "bench\\.shape\\.history 2\\.0, sites changelog 2\\.0, ");
        // What each pipeline's logs grew by, so the shape's smaller records are in view when the two are compared.
        assertThat(run.output()).containsPattern("bytes       kafka shape's logs grew by [1-9][0-9]+ per activity: bench-shape-streams-sites-changelog ")
                .containsPattern("bytes       at-least-once's logs grew by [1-9][0-9]+ per activity: ");
        // RocksDB's background work over each whole run, the shape's as Baton's: a burst catches only the flushes that fall in it.
        assertThat(run.output()).containsPattern("rocksdb     kafka shape over the whole run until its stores closed, per activity sent \\([0-9]+\\): ")
                .containsPattern("rocksdb     at-least-once over the whole run until its stores closed, per activity sent \\([0-9]+\\): ");
        assertThat(run.output()).containsPattern("cpu         in the bursts, per activity \\(us\\): raw [0-9]+; kafka shape [0-9]+ = broker [0-9]+, "
                + "streams app [1-9][0-9]*, worker [1-9][0-9]*, client [1-9][0-9]*, outside Java threads");
        // Where the run's data lived (memory or disk changes the latencies); the directory is gone afterwards.
        assertThat(run.output()).containsPattern("storage     broker logs and streams state in \\S+baton-bench-\\S+ \\(\\w+\\)");
        String dir = run.output().replaceAll("(?s).*storage     broker logs and streams state in (\\S+) .*", "$1");
        assertThat(Path.of(dir)).doesNotExist();
        // The streams app's settings that set Baton's latency and throughput, as its defaults resolved them.
        assertThat(run.output()).contains("exactly-once   streams app: processing.guarantee=exactly_once_v2, commit.pacing=drained, commit.interval.ms=100, num.stream.threads=1",
                "at-least-once  streams app: processing.guarantee=at_least_once, commit.pacing=interval, commit.interval.ms=100");
        // The burst is sized from the warm-up's rate, never below --burst.
        assertThat(run.output()).containsPattern("raw three-hop  max sustained: [0-9]{3,} activities")
                .containsPattern("exactly-once   max sustained: [0-9]{3,} activities")
                .containsPattern("at-least-once  max sustained: [0-9]{3,} activities");
        // Every sampled activity's hops are found in the topics (the scan keeps the sampled sites only).
        assertThat(run.output()).contains("hops           at    50/s (p50/p99 ms, n=50)");
        // The stream threads' commits during each fixed-rate run, from the totals (the run commits at least once),
        // and what each commit waited for.
        assertThat(run.output()).containsPattern("streams        at    50/s: [1-9][0-9]* commits/s \\(one per [0-9.]+ ms\\), "
                + "each waiting [0-9.]+ ms to flush, [0-9.]+ ms for offsets, [0-9.]+ ms to end; stream threads on a CPU [0-9]+% of the time");
        // CPU is attributed by role; the streams app must be found by its threads' names.
        assertThat(run.output()).containsPattern("cpu         in the bursts, per activity \\(us\\): raw [0-9]+; exactly-once [0-9]+ = broker [0-9]+, "
                + "streams app [1-9][0-9]*, worker [1-9][0-9]*, client [1-9][0-9]*, outside Java threads");
        // What no Java thread accounts for, split by the JVM's and RocksDB's own threads (from /proc).
        assertThat(run.output()).containsPattern("outside Java threads \\(GC, JIT, RocksDB\\) [0-9]+ \\(GC [0-9.]+, JIT [0-9.]+, RocksDB [0-9.]+, rest [0-9.]+\\)");
        // What the young collections kept in the bursts: the collector's work, whatever CPU it got.
        assertThat(run.output()).containsPattern("gc kept     survivors and promotions of young collections in the bursts: raw kept [0-9.]+ MB per "
                + "young collection, [0-9.]+ KB per activity; exactly-once kept [0-9.]+ MB per young collection");
        // The collector the run was on, and its pauses in the bursts of each side.
        assertThat(run.output()).containsPattern("gc          .+; max heap [0-9]+ MiB; in the bursts: raw [0-9]+ collections, [0-9]+ ms "
                + "\\([0-9]+% of the time\\); exactly-once [0-9]+ collections");
        // The machine's own speed, so that runs on a slower machine are not compared with others.
        assertThat(run.output()).containsPattern("machine     reference work before the run: sort of 1M longs [0-9]+ ms, "
                + "1-byte write to /dev/null [0-9.]+ us; after: sort of 1M longs [0-9]+ ms");
    }
}
