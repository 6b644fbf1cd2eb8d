package dev.baton.cli;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import dev.baton.streams.BatonStreamsApp;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code baton streams-app}: runs the topology that owns sites, fences and deadlines until SIGTERM. */
@Command(name = "streams-app", mixinStandardHelpOptions = true,
        description = "Run Baton's streams app (site state machine) until stopped; SIGTERM closes it cleanly.")
public final class StreamsAppCommand implements Callable<Integer> {

    @Mixin
    ProcessOptions process;

    @Override
    public Integer call() throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        try (MetricsEndpoint metrics = new MetricsEndpoint(process.metricsPort);
             BatonStreamsApp app = new BatonStreamsApp(process.client.clientConfig(), metrics.registry())) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                app.close();
                stopped.countDown();
            }, "baton-streams-shutdown"));
            app.start();
            System.out.println("streams app started against " + process.client.clientConfig().get("bootstrap.servers"));
            app.awaitRunning(Duration.ofMinutes(5));
            System.out.println("streams app RUNNING");
            stopped.await();
        }
        return 0;
    }
}
