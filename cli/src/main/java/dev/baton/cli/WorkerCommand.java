package dev.baton.cli;

import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
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
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code baton worker}: serves queues until SIGTERM, then drains (finish within the drain timeout, park the rest). */
@Command(name = "worker", mixinStandardHelpOptions = true, description = "Run a Baton worker; SIGTERM drains it.")
public final class WorkerCommand implements Callable<Integer> {

    @Mixin
    ProcessOptions process;

    @Spec
    CommandSpec spec;

    @Option(names = "--queue", description = "Queue to serve (repeatable; default: worker.queues, e.g. BATON_WORKER_QUEUES=a,b)")
    List<String> queues = List.of();

    @Option(names = "--handler", description = "activityType=fully.qualified.HandlerClass (repeatable; the class needs a no-arg constructor), "
            + "found on --classpath or in --lib-dir")
    Map<String, String> handlers = Map.of();

    @Option(names = {"--classpath", "-cp"}, paramLabel = "PATH", description = "Jars, class directories or dir/* holding the --handler "
            + "classes (repeatable; several per value as java -cp reads them, which java -jar ignores)")
    List<String> classpath = List.of();

    @Option(names = "--lib-dir", paramLabel = "DIR", defaultValue = "${env:BATON_LIB_DIR:-lib}",
            description = "Every jar in DIR is on the handlers' class path too, if DIR exists (default: $BATON_LIB_DIR, else ./lib; "
                    + "in the baton image /opt/baton/lib)")
    Path libDir;

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
        Map<String, Object> config = process.client.clientConfig();
        ConfigAudit.logAtStart(config, ProcessKeys.WORKER);
        WorkerConfig workerConfig = new WorkerConfig(config);
        List<String> served = queues.isEmpty() ? workerConfig.queues() : queues;
        if (served.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "no queue to serve: give --queue or worker.queues (BATON_WORKER_QUEUES)");
        }
        WorkerOptions.Builder options = workerConfig.toOptions().queues(served).nodeLabels(labels.toArray(String[]::new));
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
        HandlerClasspath userClasses = handlerClasspath();
        CountDownLatch stopped = new CountDownLatch(1);
        try (URLClassLoader loader = userClasses.loader(WorkerCommand.class.getClassLoader());
             ProcessEndpoint metrics = new ProcessEndpoint(process.metricsPort)) {
            userHandlers(userClasses, loader).forEach(options::handler);
            // The worker's threads inherit this, so a handler's own lookups (ServiceLoader, Jackson, Kafka plugins) see its jars.
            Thread.currentThread().setContextClassLoader(loader);
            Worker worker = Worker.start(options.meters(metrics.registry()).build());
            metrics.readiness(worker::isReady);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                worker.close();
                stopped.countDown();
            }, "baton-worker-drain"));
            System.out.println("worker " + worker.workerId() + " serving " + served);
            stopped.await();
        }
        return 0;
    }

    private HandlerClasspath handlerClasspath() {
        try {
            return HandlerClasspath.of(classpath, libDir);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    /** The {@code --handler} classes, instantiated through {@code loader}; a class that cannot serve is a usage error. */
    Map<String, ActivityHandler> userHandlers(HandlerClasspath userClasses, ClassLoader loader) {
        Map<String, ActivityHandler> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> h : handlers.entrySet()) {
            try {
                out.put(h.getKey(), userClasses.newHandler(h.getValue(), loader));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--handler " + h.getKey() + "=" + h.getValue() + ": " + e.getMessage(), e);
            }
        }
        return out;
    }
}
