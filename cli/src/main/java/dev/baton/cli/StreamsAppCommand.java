package dev.baton.cli;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.baton.streams.BatonStreamsApp;
import dev.baton.streams.config.StreamsAppConfig;
import dev.baton.topics.ClusterWait;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code baton streams-app}: runs the topology that owns sites, fences and deadlines until SIGTERM.
 * Its one HTTP port (--metrics-port) serves /metrics, /health, /ready (RUNNING) and the query API
 * that {@code baton status}, {@code baton site describe} and {@code baton sites list} read.
 */
@Command(name = "streams-app", mixinStandardHelpOptions = true,
        description = {"Run Baton's streams app (site state machine) until stopped; SIGTERM closes it cleanly.",
            "--metrics-port serves /metrics, /health, /ready and the query API (/status, /sites, /sites/<key>); other instances reach "
                    + "it at status.advertised.host:<port> unless application.server is set."})
public final class StreamsAppCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(StreamsAppCommand.class);

    @Mixin
    ProcessOptions process;

    @Override
    public Integer call() throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Map<String, Object> config = config(process.client.clientConfig(), process.metricsPort);
        ConfigAudit.logAtStart(config, ProcessKeys.STREAMS_APP);
        // Started before its brokers (a restart, a container set coming up), it waits for them as a worker does: its
        // start-up reads the cluster with 10-30 s timeouts and exited on the first (h/adv26).
        ClusterWait.untilAnswering(config, "streams app");
        try (ProcessEndpoint endpoint = new ProcessEndpoint(process.metricsPort);
             BatonStreamsApp app = new BatonStreamsApp(config, endpoint.registry())) {
            endpoint.readiness(app::isRunning).serve(app.queries());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                app.close();
                stopped.countDown();
            }, "baton-streams-shutdown"));
            app.start();
            System.out.println("streams app started against " + config.get("bootstrap.servers"));
            app.awaitRunning(Duration.ofMinutes(5));
            System.out.println("streams app RUNNING");
            while (!stopped.await(1, TimeUnit.SECONDS)) {
                if (app.refusal().isPresent()) { // another instance's guarantee or key is in force: this one stopped itself
                    System.err.println("streams app stopped: " + app.refusal().get().getMessage());
                    return 1;
                }
            }
        }
        return 0;
    }

    /**
     * With a process port, the query API lives on it: application.server names it (unless set), and
     * status.port is turned off so the process keeps one port.
     */
    static Map<String, Object> config(Map<String, Object> given, int processPort) {
        Map<String, Object> config = new HashMap<>(given);
        if (processPort <= 0) {
            return config;
        }
        Object statusPort = config.remove(StreamsAppConfig.STATUS_PORT_CONFIG);
        if (statusPort != null && !"0".equals(statusPort.toString().strip())) {
            log.warn("status.port={} ignored: baton streams-app serves the query API on --metrics-port {}", statusPort, processPort);
        }
        Object host = config.getOrDefault(StreamsAppConfig.STATUS_ADVERTISED_HOST_CONFIG, "localhost");
        config.putIfAbsent(StreamsConfig.APPLICATION_SERVER_CONFIG, host + ":" + processPort);
        return config;
    }
}
