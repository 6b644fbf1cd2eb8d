package dev.baton.morsel.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;

import dev.baton.morsel.exchange.HashExchange;
import dev.baton.morsel.morsel.Morsel;

/** How a pipeline's morsels are dealt to the workers' deques before stealing starts, by pipeline kind. */
final class MorselDeal {

    private MorselDeal() {
    }

    static List<ConcurrentLinkedDeque<Morsel>> deal(PipelineKind kind, List<Morsel> morsels, int workers, int numaNodes) {
        return kind == PipelineKind.PROBE ? byHashExchange(morsels, workers) : byNuma(morsels, workers, numaNodes);
    }

    /** Round-robin among the workers of each morsel's preferred NUMA node. */
    private static List<ConcurrentLinkedDeque<Morsel>> byNuma(List<Morsel> morsels, int workers, int numaNodes) {
        List<ConcurrentLinkedDeque<Morsel>> deques = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            deques.add(new ConcurrentLinkedDeque<>());
        }
        int[] nextByNode = new int[numaNodes];
        for (Morsel m : morsels) {
            int node = m.preferredNumaNode() % numaNodes;
            int nodeWorkers = (workers - node + numaNodes - 1) / numaNodes; // workers w with w % numaNodes == node
            int worker = nodeWorkers == 0 ? m.id() % workers : node + numaNodes * (nextByNode[node]++ % nodeWorkers);
            deques.get(worker).addLast(m);
        }
        return deques;
    }

    /**
     * The seed's rule for probe pipelines: morsel ids are hash-exchanged over the workers, a worker
     * holding {@link HashExchange#DEFAULT_HOT_THRESHOLD} morsels spilling the next to the least
     * loaded. Stealing still evens out what is left.
     */
    private static List<ConcurrentLinkedDeque<Morsel>> byHashExchange(List<Morsel> morsels, int workers) {
        long[] ids = new long[morsels.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = morsels.get(i).id();
        }
        int[] target = HashExchange.assign(ids, workers, HashExchange.DEFAULT_HOT_THRESHOLD);
        List<ConcurrentLinkedDeque<Morsel>> deques = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            deques.add(new ConcurrentLinkedDeque<>());
        }
        for (int i = 0; i < target.length; i++) {
            deques.get(target[i]).addLast(morsels.get(i));
        }
        return deques;
    }
}
