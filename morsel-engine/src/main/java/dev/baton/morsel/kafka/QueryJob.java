package dev.baton.morsel.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToLongFunction;

import dev.baton.morsel.morsel.Morsel;
import dev.baton.morsel.operator.ScanPipeline;
import dev.baton.morsel.scheduler.MorselScheduler;
import dev.baton.morsel.scheduler.Pipeline;
import dev.baton.morsel.scheduler.PipelineKind;
import dev.baton.morsel.scheduler.TaskContext;

/**
 * Several {@link TopicFold.TopicQuery queries} assembled as one job for {@link TopicFold#queryTogether}:
 * each query keeps its own plan, column view and pipeline; the job numbers their morsels in one
 * sequence (query by query) and sends each back to its own pipeline. Built and read on the caller's
 * thread; {@link #run} is called by the scheduler's workers.
 */
final class QueryJob<R> {

    private final List<TopicMorsels.Plan> plans = new ArrayList<>();
    private final List<TopicPageSource> sources = new ArrayList<>();
    private final List<Pipeline> pipelines = new ArrayList<>();
    private final List<Function<MorselScheduler, R>> answers = new ArrayList<>();
    private final List<String> topics = new ArrayList<>();
    /** The job's morsels in order; morsel {@code i} is {@code local.get(i)} of query {@code queryOf[i]}. */
    private final List<Morsel> morsels = new ArrayList<>();
    private final List<Morsel> local = new ArrayList<>();
    private final int[] queryOf;

    QueryJob(List<TopicFold.TopicQuery<R>> queries, ScanConsumers consumers, int threads, ToLongFunction<List<OffsetRange>> offsetsPerMorsel) {
        List<Integer> owners = new ArrayList<>();
        for (int q = 0; q < queries.size(); q++) {
            TopicFold.TopicQuery<R> query = queries.get(q);
            TopicMorsels.Plan plan = TopicMorsels.plan(query.ranges(), offsetsPerMorsel.applyAsLong(query.ranges()), threads);
            TopicPageSource source = TopicPageSource.columns(consumers, plan.ranges(), query.columns(), query.decoders());
            ScanPipeline scan = ScanPipeline.over(source);
            answers.add(query.query().assemble(scan));
            String topic = query.ranges().isEmpty() ? "nothing" : query.ranges().get(0).topic();
            pipelines.add(scan.pipeline("query " + topic, PipelineKind.SCAN, plan.morsels(), threads));
            plans.add(plan);
            sources.add(source);
            topics.add(topic);
            for (Morsel m : plan.morsels()) {
                int id = morsels.size();
                morsels.add(new Morsel(id, id, id + 1, m.preferredNumaNode()));
                local.add(m);
                owners.add(q);
            }
        }
        queryOf = owners.stream().mapToInt(Integer::intValue).toArray();
    }

    List<Morsel> morsels() {
        return morsels;
    }

    /** The ranges worker {@code worker} was dealt, in the order it scans them (query by query). */
    List<OffsetRange> rangesOf(int worker) {
        List<OffsetRange> mine = new ArrayList<>();
        for (int i = 0; i < morsels.size(); i++) {
            if (morsels.get(i).preferredNumaNode() == worker) {
                mine.add(plans.get(queryOf[i]).ranges().get(local.get(i).startPage()));
            }
        }
        return mine;
    }

    /** Runs the job's morsel on its query's pipeline, reading with {@code worker}'s consumer. */
    void run(int worker, Morsel morsel, TaskContext ctx) throws Exception {
        int q = queryOf[morsel.id()];
        sources.get(q).bind(worker);
        pipelines.get(q).task().run(worker, local.get(morsel.id()), ctx);
    }

    R answer(int query, MorselScheduler scheduler) {
        return answers.get(query).apply(scheduler);
    }

    TopicPageSource source(int query) {
        return sources.get(query);
    }

    TopicMorsels.Plan plan(int query) {
        return plans.get(query);
    }

    String topicOf(int query) {
        return topics.get(query);
    }

    /** The topics read, for names of phases and pipelines. */
    String topics() {
        return String.join("+", topics);
    }
}
