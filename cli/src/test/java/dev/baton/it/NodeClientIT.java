package dev.baton.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.events.DispatchCommand;
import dev.baton.events.WorkerEvent;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.testkit.LocalCluster;
import org.junit.jupiter.api.Test;

/**
 * The Node.js reference client (clients/node: kafkajs and avsc) dispatches activities and serves
 * them as a worker against the streams app on the embedded broker, with its schemas registered
 * through the streams app's Confluent REST API; then Confluent's own JavaScript registry client uses
 * that API unchanged; then its worker is cancelled under a running handler (the STOP aborts it), drains
 * without costing a retry, and leases plainly. Skipped, saying why, where node or npm is absent.
 */
class NodeClientIT {

    private static final Path CLIENT = Path.of("..", "clients", "node").toAbsolutePath().normalize();
    private static final String QUEUE = "node-echo";
    private static final int ACTIVITIES = 3;

    @Test
    void shouldCompleteActivitiesDispatchedAndServedByTheNodeClient() throws Exception {
        assumeTrue(onPath("node") && onPath("npm"), "node or npm is not on the PATH: the Node client's IT is skipped (.ci/run installs them)");
        installDependencies();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (LocalCluster cluster = LocalCluster.start(3, List.of(QUEUE), Map.of("schema.registry.rest.port", port))) {
            assertThat(cluster.streamsApp().schemaRegistryRestPort()).isEqualTo(port);

            Run run = run(List.of("node", "src/demo.js", "--bootstrap", cluster.bootstrapServers(), "--registry", "http://127.0.0.1:" + port,
                    "--queue", QUEUE, "--activities", String.valueOf(ACTIVITIES), "--capacity", "2", "--timeout", "60000"), 90);

            assertThat(run.exit()).as(run.output()).isZero();
            List<String> lines = run.output().lines().filter(l -> l.startsWith("{")).toList();
            JsonNode summary = summaryOf(run.output(), "registered");
            assertThat(summary.path("completed").asInt()).as(run.output()).isEqualTo(ACTIVITIES);
            assertThat(lines).filteredOn(l -> l.contains("\"status\":\"COMPLETED\"")).hasSize(ACTIVITIES);
            try (SchemaRegistry java = SchemaRegistry.forUrl("kafka://" + cluster.bootstrapServers(), Map.of())) {
                JsonNode registered = summary.path("registered");
                assertThat(java.register("baton.dispatch-value", DispatchCommand.getClassSchema()))
                        .as("the Java schema gets the id the Node client registered over REST")
                        .isEqualTo(registered.path("baton.dispatch-value").asInt(-1));
                assertThat(java.register("baton.worker-events-value", WorkerEvent.getClassSchema()))
                        .isEqualTo(registered.path("baton.worker-events-value").asInt(-1));
            }

            // What a worker does besides running tasks, each in its own process against the same cluster.
            String registry = "http://127.0.0.1:" + port;
            assertThat(summary.path("maxRunning").asInt()).as("at most --capacity handlers at once").isEqualTo(2);
            JsonNode stop = scenario(cluster, registry, "stop");
            assertThat(stop.path("cancelled").asInt()).as("the cancelled caller's answer").isEqualTo(1);
            assertThat(stop.path("aborted").asInt()).as("the STOP reached the running handler").isEqualTo(1);
            JsonNode drain = scenario(cluster, registry, "drain");
            assertThat(drain.path("parked").asInt()).as("a drain parks what is still running").isEqualTo(ACTIVITIES);
            assertThat(drain.path("firstAttempt").asInt()).as("a drain costs no retry").isEqualTo(ACTIVITIES);
            assertThat(drain.path("bySecond").asInt()).as("the other worker finishes what was parked").isEqualTo(ACTIVITIES);
            JsonNode plain = scenario(cluster, registry, "echo", "--lease-mode", "plain");
            assertThat(plain.path("completed").asInt()).as("the plain lease mode").isEqualTo(ACTIVITIES);

            // Confluent's own JavaScript registry client, unchanged, against the same REST API.
            Run confluent = run(List.of("node", "src/confluent-check.js", "--registry", "http://127.0.0.1:" + port), 60);
            assertThat(confluent.exit()).as(confluent.output()).isZero();
            JsonNode check = summaryOf(confluent.output(), "dispatchId");
            assertThat(check.path("dispatchId").asInt()).isEqualTo(summary.path("registered").path("baton.dispatch-value").asInt(-1));
        }
    }

    /** Runs the demo's scenario (exit 0 only if its expectations held) and returns its summary line. */
    private static JsonNode scenario(LocalCluster cluster, String registry, String name, String... more) throws Exception {
        List<String> command = new ArrayList<>(List.of("node", "src/demo.js", "--bootstrap", cluster.bootstrapServers(), "--registry", registry,
                "--queue", QUEUE, "--activities", String.valueOf(ACTIVITIES), "--scenario", name, "--timeout", "60000"));
        command.addAll(List.of(more));
        Run run = run(command, 90);
        assertThat(run.exit()).as(name + ":\n" + run.output()).isZero();
        return summaryOf(run.output(), "registered");
    }

    /**
     * The last JSON line of {@code output} that has {@code field}: the script's summary. Not simply the last
     * JSON line: kafkajs logs JSON lines too, and one printed after the summary (a client closing) was
     * once read as the summary, every count in it 0, while the scenario had passed.
     */
    private static JsonNode summaryOf(String output, String field) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<String> lines = output.lines().filter(l -> l.startsWith("{")).toList();
        for (int i = lines.size() - 1; i >= 0; i--) {
            JsonNode line = json.readTree(lines.get(i));
            if (line.has(field)) {
                return line;
            }
        }
        throw new AssertionError("no JSON line with '" + field + "' in the output:\n" + output);
    }

    private static void installDependencies() throws Exception {
        if (Files.isDirectory(CLIENT.resolve("node_modules/kafkajs")) && Files.isDirectory(CLIENT.resolve("node_modules/avsc"))
                && Files.isDirectory(CLIENT.resolve("node_modules/@kafkajs/confluent-schema-registry"))) {
            return;
        }
        Run ci = run(List.of("npm", "ci", "--no-audit", "--no-fund"), 300);
        assertThat(ci.exit()).as("npm ci in " + CLIENT + ":\n" + ci.output()).isZero();
    }

    private record Run(int exit, String output) {
    }

    private static Run run(List<String> command, int timeoutSeconds) throws IOException, InterruptedException {
        File log = Files.createTempFile("baton-node-", ".log").toFile();
        Process process = new ProcessBuilder(command).directory(CLIENT.toFile()).redirectErrorStream(true)
                .redirectOutput(log).start();
        boolean done = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!done) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor();
        }
        String output = Files.readString(log.toPath(), StandardCharsets.UTF_8);
        Files.deleteIfExists(log.toPath());
        return new Run(done ? process.exitValue() : -1, (done ? "" : "timed out after " + timeoutSeconds + " s\n") + output);
    }

    private static boolean onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
