package dev.baton.cli;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import dev.baton.worker.ActivityHandler;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerConfig;
import dev.baton.worker.WorkerOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code baton worker}: serves queues until SIGTERM, then drains (finish within the drain timeout, park the rest). */
@Command(name = "worker", mixinStandardHelpOptions = true, description = "Run a Baton worker; SIGTERM drains it.")
public final class WorkerCommand implements Callable<Integer> {

    @Mixin
    ProcessOptions process;

    @Option(names = "--queue", required = true, description = "Queue to serve (repeatable)")
    List<String> queues;

    @Option(names = "--handler", description = "activityType=fully.qualified.HandlerClass (repeatable; the class needs a no-arg constructor)")
    Map<String, String> handlers = Map.of();

    @Option(names = "--demo-handlers", description = "Serve the demo handlers: echo, flaky, terminal, long")
    boolean demoHandlers;

    @Option(names = "--worker-id", description = "Stable worker id, one per running process: a second process with the same id takes over "
            + "its lease transactions and the first stops serving (default: random)")
    String workerId;

    @Option(names = "--max-concurrent", description = "Activities running at once (default: worker.max.concurrent, 16)")
    Integer maxConcurrent;

    @Option(names = "--node-label", description = "Node label for pinned tasks (repeatable)")
    List<String> labels = List.of();

    @Option(names = "--drain-timeout-ms", description = "Drain timeout on SIGTERM (default: worker.drain.timeout.ms, 30000)")
    Long drainTimeoutMs;

    @Override
    public Integer call() throws Exception {
        WorkerOptions.Builder options = new WorkerConfig(process.client.clientConfig()).toOptions().queues(queues)
                .nodeLabels(labels.toArray(String[]::new));
        if (maxConcurrent != null) {
            options.maxConcurrent(maxConcurrent);
        }
        if (drainTimeoutMs != null) {
            options.drainTimeout(Duration.ofMillis(drainTimeoutMs));
        }
        if (workerId != null) {
            options.workerId(workerId);
        }
        if (demoHandlers) {
            DemoHandlers.all().forEach(options::handler);
        }
        for (Map.Entry<String, String> h : handlers.entrySet()) {
            options.handler(h.getKey(), (ActivityHandler) Class.forName(h.getValue()).getDeclaredConstructor().newInstance());
        }
        CountDownLatch stopped = new CountDownLatch(1);
        try (MetricsEndpoint metrics = new MetricsEndpoint(process.metricsPort)) {
            Worker worker = Worker.start(options.meters(metrics.registry()).build());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                worker.close();
                stopped.countDown();
            }, "baton-worker-drain"));
            System.out.println("worker " + worker.workerId() + " serving " + queues);
            stopped.await();
        }
        return 0;
    }
}
