package dev.baton.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.Outcome;
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

    @Option(names = "--timeout-s", defaultValue = "60", description = "How long to wait for the outcome (default ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Override
    public Integer call() throws Exception {
        ActivityRequest request = ActivityRequest.builder().site(namespace, workflow == null ? UUID.randomUUID().toString() : workflow, activity)
                .attempt(attempt).queue(queue).activityType(type).input(input(), "application/octet-stream").build();
        Map<String, Object> config = new HashMap<>(client.clientConfig());
        config.putIfAbsent("baton.client.id", "cli-" + UUID.randomUUID());
        try (DispatchClient c = DispatchClient.create(config, UnmatchedResultHandler.IGNORE)) {
            Outcome outcome = c.dispatch(request).get(timeoutSeconds, TimeUnit.SECONDS);
            System.out.println(outcome.completed() ? "completed: " + outcome.outputAsString() : "failed: " + outcome.reason());
            return outcome.completed() ? 0 : 1;
        }
    }

    private byte[] input() throws IOException {
        if (inputFile == null) {
            return new byte[0];
        }
        return "-".equals(inputFile) ? System.in.readAllBytes() : Files.readAllBytes(Path.of(inputFile));
    }
}
