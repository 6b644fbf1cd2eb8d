package dev.baton.morsel.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.SiteRef;
import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.data.PageFile;
import dev.baton.morsel.data.PageFileWriter;
import dev.baton.morsel.kafka.ProjectedReader;
import dev.baton.morsel.kafka.ProjectedRow;
import dev.baton.morsel.morsel.Morsels;
import dev.baton.morsel.operator.AggregateResult;
import dev.baton.morsel.operator.ColumnRef;
import dev.baton.morsel.operator.RunCombine;
import dev.baton.morsel.operator.ScanPipeline;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.PipelineKind;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adversarial review (h/adv39): request ids that are not well-formed UTF-8 inside an outcome's value. The reference
 * (HistoryScanReferenceIT.plainOutcomes) decodes with EventSerde (stringType String: ill-formed bytes become U+FFFD) and
 * keys answers by that String, first by order (putIfAbsent). The engine interns the request id by its bytes
 * (OutcomeDecoder: requests.add(o.utf8(O_REQUEST))), so two ill-formed request ids that decode alike are two answers,
 * and SiteQueries.answers puts both into one HashMap under the same String: the row of the larger dictionary id wins,
 * whatever their order. Fixed: the decoders intern a value string in its decoded form ({@code Utf8Keys.decoded}),
 * which this test's copy of OutcomeDecoder's read does too.
 */
class Adv39AnswersTest {

    @TempDir
    Path dir;

    /** An outcome value whose request id is "r-" followed by {@code tail}'s raw bytes (patched over "r-ZZ"). */
    private static byte[] outcome(EventSerde<Outcome> serde, byte[] tail, boolean completed, String reason, long at) {
        byte[] value = serde.encode(BatonTopics.RESULTS, Outcome.newBuilder().setStatus(completed ? OutcomeStatus.COMPLETED : OutcomeStatus.FAILED)
                .setSite(new SiteRef("ns", "wf", "1")).setRequestId("r-ZZ").setReplyKey("client").setAttempt(1)
                .setReason(reason).setAtMillis(at).build());
        byte[] marker = "r-ZZ".getBytes(StandardCharsets.UTF_8);
        outer:
        for (int i = 0; i + marker.length <= value.length; i++) {
            for (int j = 0; j < marker.length; j++) {
                if (value[i + j] != marker[j]) {
                    continue outer;
                }
            }
            value[i + 2] = tail[0];
            value[i + 3] = tail[1];
            return value;
        }
        throw new AssertionError("marker not found");
    }

    @Test
    void twoIllFormedRequestIdsThatDecodeAlikeAnswerWithTheFirstOutcomeByOrder() {
        SchemaRegistry registry = SchemaRegistry.forUrl("mem://adv39-answers", Map.of());
        EventSerde<Outcome> serde = EventSerde.of(Outcome.class, registry);
        byte[] tailA = {(byte) 0xff, 'A'};
        byte[] tailB = {(byte) 0xfe, 'A'};
        // both assignments: whichever of the two byte strings gets the larger dictionary id, the first by order must win
        for (boolean aFirst : new boolean[] {true, false}) {
            byte[] first = outcome(serde, aFirst ? tailA : tailB, true, null, 10); // order(0, 0): completed at 10
            byte[] second = outcome(serde, aFirst ? tailB : tailA, false, "terminal: no", 20); // order(0, 1): failed at 20

            // the reference: EventSerde, keyed by the decoded String, first by order
            Map<String, Outcome> plain = new HashMap<>();
            for (byte[] v : List.of(first, second)) {
                Outcome o = serde.decode(BatonTopics.RESULTS, v);
                plain.putIfAbsent(o.getRequestId().toString(), o);
            }
            assertThat(plain).hasSize(1);
            String request = plain.keySet().iterator().next();
            assertThat(request).isEqualTo("r-\uFFFDA");
            assertThat(plain.get(request).getStatus()).isEqualTo(OutcomeStatus.COMPLETED);

            // the engine: the projected reader's request bytes, as OutcomeDecoder takes them, through the answers composition
            ProjectedReader reader = new ProjectedReader(registry, () -> LogProjections.OUTCOME);
            PageStrings requests = new PageStrings();
            StringIds built = new StringIds();
            long terminal = built.id("terminal:");
            Path file = dir.resolve("answers-" + aFirst + ".btn");
            try (PageFileWriter w = new PageFileWriter(file, List.of("request", "first", "completed", "reason", "at"), 1024)) {
                long offset = 0;
                for (byte[] v : List.of(first, second)) {
                    ProjectedRow row = reader.newRow();
                    reader.decode(BatonTopics.RESULTS, ByteBuffer.wrap(v), row); // not refused
                    int slot = LogProjections.O_REQUEST; // read as OutcomeDecoder reads it: in its decoded form
                    long ref = requests.addDecodedForm(row.stringArray(slot), row.stringOffset(slot), row.stringLength(slot));
                    boolean completed = row.getInt(LogProjections.O_STATUS) == OutcomeStatus.COMPLETED.ordinal();
                    w.append(new long[] {ref, -SiteQueries.order(0, offset), completed ? 1 : 0, completed ? StringIds.NULL : terminal,
                            row.getLong(LogProjections.O_AT)});
                    offset++;
                }
            }
            PageFile f = PageFile.open(file);
            try (MorselScheduler s = new MorselScheduler(1, 1, MorselMetrics.noop())) {
                ScanPipeline scan = ScanPipeline.over(f);
                ColumnRef firstCol = scan.col("first");
                RunCombine runs = scan.combineRuns("request", scan.col("request"))
                        .maxBy(firstCol, scan.col("completed"), scan.col("reason"), scan.col("at"));
                SegmentDeal deal = new SegmentDeal(runs, new PageStrings[] {requests}, 64, 24);
                s.run(scan.into(deal).pipeline("answers", PipelineKind.SCAN, Morsels.partition(0, f.pageCount(), 1, 1), 1));
                AggregateResult a = deal.result(s, built);
                // SiteQueries.answers, as written: one map entry per row, keyed by the row's string
                Map<String, HistoryLog.Answer> answers = new HashMap<>();
                for (int i = 0; i < a.rows(); i++) {
                    answers.put(built.string(a.key(i)), new HistoryLog.Answer(a.value(i, 1) == 1, built.string(a.value(i, 2)), a.value(i, 3)));
                }
                assertThat(answers.keySet()).containsExactly(request);
                assertThat(answers.get(request)).as("first %s: the first outcome by order (completed at 10)", aFirst ? "0xff" : "0xfe")
                        .isEqualTo(new HistoryLog.Answer(true, null, 10));
                assertThat(a.rows()).as("one answer per request id, as the reference has one").isEqualTo(1);
            }
        }
    }
}
