package dev.baton.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import dev.baton.cli.options.ClientOptions;
import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.dispatcher.UnmatchedResultHandler;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code baton dispatch}: sends one activity and prints its outcome. */
@Command(name = "dispatch", mixinStandardHelpOptions = true, description = "Dispatch one activity and print its outcome.")
public final class DispatchCommand implements Callable<Integer> {

    @Mixin
    ClientOptions client;

    @Option(names = "--queue", required = true)
    String queue;

    @Option(names = "--type", required = true, description = "Activity type")
    String type;

    @Option(names = "--namespace", defaultValue = "default")
    String namespace;

    @Option(names = "--workflow", description = "Workflow id (default: random)")
    String workflow;

    @Option(names = "--activity", defaultValue = "1", description = "Activity id within the workflow")
    String activity;

    @Option(names = "--attempt", defaultValue = "1")
    int attempt;

    @Option(names = "--input-file", description = "Read the input from this file; '-' reads standard input (default: empty input)")
    String inputFile;

    @Option(names = "--input", description = "The input as text (UTF-8), instead of --input-file")
    String inputText;

    @Option(names = "--timeout-s", defaultValue = "60", description = "How long to wait for the outcome (default ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Option(names = "--count", defaultValue = "1", description = "Activities to dispatch, one after the other, each in its own "
            + "workflow <workflow>-<n> (0 = until stopped; default ${DEFAULT-VALUE})")
    long count;

    @Option(names = "--interval-ms", defaultValue = "1000", description = "Pause after each outcome when --count is not 1 (default ${DEFAULT-VALUE})")
    long intervalMs;

    @Option(names = "--stack", description = "With a failure a worker reported, print each stack of its chain too")
    boolean stacks;

    @Option(names = "--metrics-port", defaultValue = "0", description = "Serve the dispatcher's metrics on this port at /metrics (0 = off)")
    int metricsPort;

    @Override
    public Integer call() throws Exception {
        byte[] input = input();
        String workflowBase = workflow == null ? UUID.randomUUID().toString() : workflow;
        Map<String, Object> config = new HashMap<>(client.clientConfig());
        config.putIfAbsent("baton.client.id", "cli-" + UUID.randomUUID());
        ConfigAudit.logAtStart(config, ProcessKeys.DISPATCHER);
        int failed = 0;
        try (ProcessEndpoint metrics = new ProcessEndpoint(metricsPort);
             DispatchClient c = DispatchClient.create(config, UnmatchedResultHandler.IGNORE, metrics.registry())) {
            metrics.readiness(() -> true); // the client is started: its results listener has its position
            for (long n = 1; count == 0 || n <= count; n++) {
                ActivityRequest request = ActivityRequest.builder().site(namespace, workflowId(workflowBase, n), activity)
                        .attempt(attempt).queue(queue).activityType(type).input(input, "application/octet-stream").build();
                ActivityOutcome outcome = c.dispatch(request).get(timeoutSeconds, TimeUnit.SECONDS);
                String line = outcome.completed() ? "completed: " + outcome.outputAsString() : "failed: " + outcome.reason();
                System.out.println(count == 1 ? line : request.site().workflowId() + " " + line);
                FailureLines.of(outcome.failure(), stacks, "  ").forEach(System.out::println);
                failed += outcome.completed() ? 0 : 1;
                if (count != 1) {
                    TimeUnit.MILLISECONDS.sleep(intervalMs); // the example dispatcher's pace, not a wait for an event
                }
            }
        }
        return failed == 0 ? 0 : 1;
    }

    /** One activity keeps the workflow id it was given; a series numbers them, so each is a new site, not a duplicate. */
    String workflowId(String base, long n) {
        return count == 1 ? base : base + "-" + n;
    }

    private byte[] input() throws IOException {
        if (inputText != null) {
            return inputText.getBytes(StandardCharsets.UTF_8);
        }
        if (inputFile == null) {
            return new byte[0];
        }
        return "-".equals(inputFile) ? System.in.readAllBytes() : Files.readAllBytes(Path.of(inputFile));
    }
}
