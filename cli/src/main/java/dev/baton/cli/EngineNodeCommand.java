package dev.baton.cli;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import dev.baton.morsel.node.EngineNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code baton engine-node}: joins the engine worker group (queue {@value EngineNode#QUEUE}) until SIGTERM. */
@Command(name = "engine-node", mixinStandardHelpOptions = true,
        description = "Run an engine node: scans and merges of distributed jobs, as Baton activities on queue 'engine'.")
public final class EngineNodeCommand implements Callable<Integer> {

    @Mixin
    ProcessOptions process;

    @Option(names = "--node-id", description = "Stable node id (default: random)")
    String nodeId;

    @Option(names = "--threads", defaultValue = "2", description = "Scan threads (default ${DEFAULT-VALUE})")
    int threads;

    @Override
    public Integer call() throws InterruptedException {
        String id = nodeId != null ? nodeId : "engine-" + UUID.randomUUID().toString().substring(0, 8);
        CountDownLatch stopped = new CountDownLatch(1);
        Map<String, Object> config = process.client.clientConfig();
        ConfigAudit.logAtStart(config, ProcessKeys.ENGINE_NODE);
        ProcessEndpoint endpoint = new ProcessEndpoint(process.metricsPort);
        // The served registry: the node's morsel gauges and its worker's meters are scraped from /metrics.
        EngineNode node = EngineNode.start(id, config, threads, (n, s, e) -> { }, endpoint.registry());
        endpoint.readiness(() -> true); // start returns once its worker serves the engine queue
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            node.close();
            endpoint.close();
            stopped.countDown();
        }, "baton-engine-node-stop"));
        System.out.println("engine node " + id + " serving queue " + EngineNode.QUEUE + " with " + threads + " scan threads"
                + (process.metricsPort > 0 ? ", metrics on :" + process.metricsPort + "/metrics" : ""));
        stopped.await();
        return 0;
    }
}
