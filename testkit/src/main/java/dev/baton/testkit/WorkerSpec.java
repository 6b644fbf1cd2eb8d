package dev.baton.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * What a worker process serves: its queues and node labels. A worker serving several queues shares
 * its slots among them; one with a label also consumes {@code baton.tasks.<queue>.<label>} of each.
 */
public record WorkerSpec(List<String> queues, List<String> nodeLabels) {

    public WorkerSpec {
        if (queues.isEmpty()) {
            throw new IllegalArgumentException("a worker must serve at least one queue, was given none");
        }
        queues = List.copyOf(queues);
        nodeLabels = List.copyOf(nodeLabels);
    }

    public static WorkerSpec of(String queue) {
        return new WorkerSpec(List.of(queue), List.of());
    }

    /** The {@code baton worker} arguments that say so. */
    List<String> arguments() {
        List<String> args = new ArrayList<>();
        queues.forEach(q -> args.addAll(List.of("--queue", q)));
        nodeLabels.forEach(n -> args.addAll(List.of("--node-label", n)));
        return args;
    }

    @Override
    public String toString() {
        return String.join("+", queues) + (nodeLabels.isEmpty() ? "" : " labels " + String.join(",", nodeLabels));
    }
}
