package dev.baton.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.embedded.EmbeddedKafka;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.schemas.registry.SchemaRegistryRestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * A rehearsal of {@code docker compose -f compose/docker-compose.yml up} without Docker: every Baton service
 * of the compose file runs as a host process exactly as the image would run it (the image config's entry point
 * and Jib's class path, from the image tarball's unpacked layers), with the service's {@code command} and
 * {@code environment} as written, in {@code depends_on} order and conditions, and is then checked the way the
 * compose file's healthchecks would check it.
 *
 * <p>What differs from Docker is listed in {@link #REWRITES} and applied in one place ({@link #rewrite}); the
 * broker and the registry are stand-ins (an in-process KRaft broker with the compose file's broker settings,
 * Baton's own Confluent-compatible REST registry). What only Docker can show (pulling apache/kafka and
 * cp-schema-registry, container DNS and networking, the healthcheck shell commands, restart policies) is in
 * docs/decisions.md.
 */
class ComposeRehearsalIT {

    /** Every difference from {@code docker compose up}; printed at start so a failing run's log carries it. */
    static final List<String> REWRITES = List.of(
            "kafka (apache/kafka:4.4.0) -> an in-process KRaft broker (EmbeddedKafka) with the service's KAFKA_* broker settings "
                    + "except listeners, node id and quorum; one PLAINTEXT listener on 127.0.0.1:<free port>",
            "schema-registry (cp-schema-registry:7.9.0) -> Baton's Confluent-compatible REST registry (SchemaRegistryRestServer over "
                    + "_baton_schemas, what ./baton demo serves on 8081) on 127.0.0.1:<free port>; healthy = GET /subjects answers 200",
            "kafka:9092 (in commands) and PLAINTEXT://kafka:9092 -> the broker's 127.0.0.1:<port>",
            "schema-registry:8081 (in mounted properties) -> 127.0.0.1:<registry port>",
            "host.properties' localhost:29092 and localhost:8081 (the host's published ports) -> the broker's and the registry's ports",
            "volumes ./F:/etc/baton/F -> a copy of compose/F (with the rewrites above); /etc/baton/F in commands -> that copy",
            "--metrics-port 9400 and the healthcheck's /dev/tcp/127.0.0.1/9400 -> a free port per process (the container port is "
                    + "9400 in every container)",
            "BATON_STATUS_ADVERTISED_HOST=<service name> -> 127.0.0.1 (container hostnames resolve only in compose's network)",
            "JAVA_TOOL_OPTIONS += -Djava.io.tmpdir=<its own directory> (each container has its own /tmp; the streams apps keep "
                    + "their state stores under it)",
            "entry point: java -> this JDK's java; @/app/jib-classpath-file -> Jib's class path under the unpacked layers; "
                    + "working directory /opt/baton and BATON_LIB_DIR -> their unpacked copies; runs as this user, not 10001",
            "deploy.replicas N -> N processes <service>-1..N",
            "healthcheck (bash /dev/tcp, GET /ready) -> the same GET from this test, polled",
            "restart: on-failure -> not honoured: a Baton process that exits fails the rehearsal",
            "prometheus -> not started; its scrape targets are checked against the services instead");

    private static final Pattern HEALTH_TARGET = Pattern.compile("/dev/tcp/127\\.0\\.0\\.1/(\\d+)\\b.*GET (\\S+) HTTP", Pattern.DOTALL);
    private static final Pattern ECHO_COMPLETED = Pattern.compile("(?m)^example-\\d+ completed: hello from the example dispatcher$");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    static Path work;

    private static Path root;
    private static JsonNode imageConfig;
    private static Map<String, Map<String, Object>> services;
    private static EmbeddedKafka kafka;
    private static SchemaRegistry registry;
    private static SchemaRegistryRestServer registryRest;
    /** Every process started, by name (worker-1, worker-2, ...): killed, with their children, after the run. */
    private static final Map<String, Started> STARTED = new LinkedHashMap<>();

    record Started(String name, String service, Process process, Path log, int metricsPort) {
        String output() {
            try {
                return Files.readString(log, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @BeforeAll
    static void standInForDocker() throws Exception {
        Path tarball = Path.of(System.getProperty("baton.image.tar", "target/baton-image.tar"));
        Assumptions.assumeTrue(Files.isRegularFile(tarball),
                "no image tarball at " + tarball + ": build with mvn -Pimage package (the image profile) to rehearse compose/");
        System.out.println("compose rehearsal; what differs from docker compose up:");
        REWRITES.forEach(r -> System.out.println("  - " + r));
        root = Files.createDirectories(work.resolve("image"));
        unpack(tarball);
        services = loadCompose();

        Map<String, Object> kafkaService = services.get("kafka");
        EmbeddedKafka.Builder broker = EmbeddedKafka.builder();
        environment(kafkaService).forEach((key, value) -> {
            if (key.startsWith("KAFKA_") && !key.matches("KAFKA_(NODE_ID|PROCESS_ROLES|.*LISTENER.*|CONTROLLER_.*)")) {
                broker.brokerProperty(key.substring("KAFKA_".length()).toLowerCase().replace('_', '.'), value);
            }
        });
        kafka = broker.build().start();
        registry = SchemaRegistry.forUrl("kafka://" + kafka.bootstrapServers(), Map.of());
        registryRest = SchemaRegistryRestServer.start(registry, 0);
        await("schema-registry healthy (GET /subjects)").atMost(Duration.ofSeconds(30))
                .until(() -> status("http://127.0.0.1:" + registryRest.port() + "/subjects") == 200);
    }

    @AfterAll
    static void killEverything() throws Exception {
        for (Started s : STARTED.values()) {
            s.process.descendants().forEach(ProcessHandle::destroyForcibly);
            s.process.destroyForcibly();
        }
        for (Started s : STARTED.values()) {
            s.process.waitFor(10, TimeUnit.SECONDS);
        }
        if (registryRest != null) {
            registryRest.close();
        }
        if (registry != null) {
            registry.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void shouldStartEveryServiceInDependsOnOrderDispatchEchoAndSurviveStoppingOneStreamsApp() throws Exception {
        List<String> baton = services.entrySet().stream()
                .filter(e -> String.valueOf(e.getValue().get("image")).startsWith("baton:")).map(Map.Entry::getKey).toList();
        assertThat(baton).containsExactlyInAnyOrder("topics", "streams-app-1", "streams-app-2", "worker", "dispatcher");

        for (String service : startOrder(baton)) {
            awaitDependencies(service);
            start(service);
        }
        for (String service : baton) {
            if (services.get(service).containsKey("healthcheck")) {
                awaitHealthy(service);
            }
        }

        await("the dispatcher prints `completed` for echo").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> completedLines() >= 2);

        // ./baton on the host, through compose/host.properties (the broker's EXTERNAL listener, the registry's port).
        Path host = copyProperties("host.properties");
        String fromHost = runToEnd("dispatch", "--config", host.toString(), "--queue", "default", "--type", "echo",
                "--input", "from the host");
        assertThat(fromHost).contains("completed: from the host");

        // docker compose stop streams-app-2: SIGTERM; the survivor takes over its tasks and the dispatcher stays answered.
        Started second = STARTED.get("streams-app-2");
        second.process.destroy();
        assertThat(second.process.waitFor(60, TimeUnit.SECONDS)).as("streams-app-2 stops on SIGTERM").isTrue();
        long before = completedLines();
        await("outcomes keep coming with streams-app-1 alone").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> completedLines() >= before + 5);
        assertThat(STARTED.get("dispatcher").process.isAlive()).as("the dispatcher is still running").isTrue();
        assertThat(status(healthUrl("streams-app-1", STARTED.get("streams-app-1")))).isEqualTo(200);
        assertThat(STARTED.get("dispatcher").output()).doesNotContain("failed:");
    }

    @Test
    void shouldScrapeEveryLongRunningBatonServiceOnItsHealthcheckPort() throws IOException {
        String prometheus = Files.readString(composeDir().resolve("prometheus.yml"));
        for (Map.Entry<String, Map<String, Object>> e : services.entrySet()) {
            if (String.valueOf(e.getValue().get("image")).startsWith("baton:") && e.getValue().containsKey("healthcheck")) {
                int port = healthTarget(e.getKey()).port;
                assertThat(prometheus).as("prometheus.yml scrapes %s", e.getKey())
                        .containsAnyOf("\"" + e.getKey() + ":" + port + "\"", "names: [\"" + e.getKey() + "\"]");
            }
        }
    }

    // ---- compose semantics

    /** The compose file's services, SnakeYAML resolving its anchors and {@code <<} merge keys as compose does. */
    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> loadCompose() throws IOException {
        try (InputStream in = Files.newInputStream(composeDir().resolve("docker-compose.yml"))) {
            Map<String, Object> file = new Yaml().load(in);
            return (Map<String, Map<String, Object>>) file.get("services");
        }
    }

    /** Services in an order that starts each after everything it depends on (compose file order otherwise). */
    private static List<String> startOrder(List<String> baton) {
        List<String> order = new ArrayList<>();
        List<String> left = new ArrayList<>(baton);
        while (!left.isEmpty()) {
            String next = left.stream().filter(s -> dependsOn(s).keySet().stream().allMatch(d -> !baton.contains(d) || order.contains(d)))
                    .findFirst().orElseThrow(() -> new AssertionError("depends_on has a cycle among " + left));
            order.add(next);
            left.remove(next);
        }
        return order;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> dependsOn(String service) {
        Object deps = services.get(service).get("depends_on");
        Map<String, String> out = new LinkedHashMap<>();
        if (deps instanceof List<?> list) {
            list.forEach(d -> out.put(d.toString(), "service_started"));
        } else if (deps instanceof Map<?, ?> map) {
            ((Map<String, Map<String, Object>>) map).forEach((d, spec) -> out.put(d, String.valueOf(spec.getOrDefault("condition", "service_started"))));
        }
        return out;
    }

    private static void awaitDependencies(String service) throws Exception {
        for (Map.Entry<String, String> dep : dependsOn(service).entrySet()) {
            String name = dep.getKey();
            switch (dep.getValue()) {
                case "service_healthy" -> {
                    if (name.equals("kafka")) {
                        assertThat(kafka.isRunning()).isTrue();
                    } else if (name.equals("schema-registry")) {
                        assertThat(status("http://127.0.0.1:" + registryRest.port() + "/subjects")).isEqualTo(200);
                    } else {
                        awaitHealthy(name);
                    }
                }
                case "service_completed_successfully" -> {
                    List<Started> jobs = instances(name);
                    assertThat(jobs).as("%s depends on %s, started before it", service, name).isNotEmpty();
                    for (Started job : jobs) {
                        assertThat(job.process.waitFor(60, TimeUnit.SECONDS)).as("%s exits", name).isTrue();
                        assertThat(job.process.exitValue()).as("exit code of %s; it printed:%n%s", name, job.output()).isZero();
                    }
                }
                case "service_started" -> assertThat(name.equals("kafka") || name.equals("schema-registry") || !instances(name).isEmpty()).isTrue();
                default -> throw new AssertionError("unknown depends_on condition " + dep.getValue() + " of " + service);
            }
        }
    }

    private static void awaitHealthy(String service) {
        for (Started s : instances(service)) {
            String url = healthUrl(service, s);
            await(s.name + " healthy (" + url + ")").atMost(healthBudget(service)).pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        if (!s.process.isAlive()) {
                            throw new AssertionError(s.name + " exited with " + s.process.exitValue() + "; it printed:\n" + s.output());
                        }
                        return status(url) == 200;
                    });
        }
    }

    private static List<Started> instances(String service) {
        return STARTED.values().stream().filter(s -> s.service.equals(service)).toList();
    }

    /** How long compose gives a service before it is unhealthy: start_period + interval x retries. */
    @SuppressWarnings("unchecked")
    private static Duration healthBudget(String service) {
        Map<String, Object> check = (Map<String, Object>) services.get(service).get("healthcheck");
        return seconds(check.get("start_period")).plus(seconds(check.get("interval")).multipliedBy(((Number) check.get("retries")).longValue()));
    }

    private static Duration seconds(Object composeDuration) {
        String s = String.valueOf(composeDuration);
        assertThat(s).as("a compose duration in seconds").matches("\\d+s");
        return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
    }

    record HealthTarget(int port, String path) {
    }

    /** The port and path the service's healthcheck asks, read from its shell command. */
    @SuppressWarnings("unchecked")
    private static HealthTarget healthTarget(String service) {
        Map<String, Object> check = (Map<String, Object>) services.get(service).get("healthcheck");
        String test = String.join(" ", (List<String>) check.get("test"));
        Matcher m = HEALTH_TARGET.matcher(test);
        assertThat(m.find()).as("healthcheck of %s asks GET <path> on 127.0.0.1:<port>: %s", service, test).isTrue();
        return new HealthTarget(Integer.parseInt(m.group(1)), m.group(2));
    }

    private static String healthUrl(String service, Started s) {
        HealthTarget target = healthTarget(service);
        assertThat(s.metricsPort).as("%s serves --metrics-port %d, the port its healthcheck asks", service, target.port).isPositive();
        return "http://127.0.0.1:" + s.metricsPort + target.path;
    }

    // ---- running a service as the image would

    @SuppressWarnings("unchecked")
    private static void start(String service) throws IOException {
        Map<String, Object> spec = services.get(service);
        int replicas = spec.get("deploy") instanceof Map<?, ?> deploy && deploy.get("replicas") instanceof Integer n ? n : 1;
        for (int i = 1; i <= replicas; i++) {
            String name = replicas == 1 ? service : service + "-" + i;
            Map<String, String> mounts = mounts(spec);
            int containerMetricsPort = -1;
            int metricsPort = -1;
            List<String> args = new ArrayList<>();
            List<String> command = (List<String>) spec.get("command");
            for (int a = 0; a < command.size(); a++) {
                String arg = command.get(a);
                if (a > 0 && command.get(a - 1).equals("--metrics-port")) {
                    containerMetricsPort = Integer.parseInt(arg);
                    metricsPort = EmbeddedKafka.freePort();
                    args.add(String.valueOf(metricsPort));
                } else {
                    args.add(rewrite(arg, mounts));
                }
            }
            if (spec.containsKey("healthcheck")) {
                assertThat(containerMetricsPort).as("%s serves its metrics on the port its healthcheck asks", name)
                        .isEqualTo(healthTarget(service).port);
            }
            Path tmp = Files.createDirectories(work.resolve("tmp-" + name));
            Map<String, String> env = new LinkedHashMap<>(environment(spec));
            env.replaceAll((key, value) -> value.equals(service) ? "127.0.0.1" : rewrite(value, mounts));
            env.merge("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + tmp, (was, add) -> was + " " + add);
            Path log = logs().resolve(name + ".log");
            Process p = entryPoint(args, env).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            STARTED.put(name, new Started(name, service, p, log, metricsPort));
            System.out.printf("started %s (pid %d): %s%n", name, p.pid(), String.join(" ", args));
        }
    }

    /** Container path -> host file: each {@code ./F:/etc/baton/F} volume as a copy of compose/F with the host names rewritten. */
    @SuppressWarnings("unchecked")
    private static Map<String, String> mounts(Map<String, Object> spec) throws IOException {
        Map<String, String> mounts = new LinkedHashMap<>();
        for (String volume : (List<String>) spec.getOrDefault("volumes", List.of())) {
            String[] parts = volume.split(":");
            mounts.put(parts[1], copyProperties(Path.of(parts[0]).getFileName().toString()).toString());
        }
        return mounts;
    }

    private static Path copyProperties(String file) throws IOException {
        String text = Files.readString(composeDir().resolve(file))
                .replace("schema-registry:8081", "127.0.0.1:" + registryRest.port())
                .replace("localhost:8081", "127.0.0.1:" + registryRest.port())
                .replace("localhost:29092", kafka.bootstrapServers())
                .replace("kafka:9092", kafka.bootstrapServers());
        return Files.writeString(work.resolve(file), text);
    }

    private static String rewrite(String word, Map<String, String> mounts) {
        String out = word.replace("kafka:9092", kafka.bootstrapServers());
        for (Map.Entry<String, String> m : mounts.entrySet()) {
            out = out.replace(m.getKey(), m.getValue());
        }
        assertThat(out).as("every /etc/baton file a command names is mounted").doesNotContain("/etc/baton/");
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> environment(Map<String, Object> spec) {
        Map<String, String> env = new LinkedHashMap<>();
        Object e = spec.get("environment");
        if (e instanceof Map<?, ?> map) {
            ((Map<String, Object>) map).forEach((k, v) -> env.put(k, String.valueOf(v)));
        } else if (e instanceof List<?> list) {
            list.forEach(kv -> env.put(kv.toString().split("=", 2)[0], kv.toString().split("=", 2)[1]));
        }
        return env;
    }

    /** The image config's entry point, run by this JDK over the unpacked layers, with the image's and the service's environment. */
    private static ProcessBuilder entryPoint(List<String> args, Map<String, String> serviceEnv) throws IOException {
        JsonNode c = imageConfig.get("config");
        List<String> command = new ArrayList<>();
        for (JsonNode node : c.get("Entrypoint")) {
            String arg = node.asText();
            if (arg.equals("java")) {
                command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            } else if (arg.startsWith("@/")) {
                List<String> classPath = List.of(Files.readString(root.resolve(arg.substring(2))).strip().split(":"));
                command.add(classPath.stream().map(e -> root.resolve(e.substring(1)).toString()).collect(Collectors.joining(":")));
            } else {
                command.add(arg);
            }
        }
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).directory(root.resolve(c.get("WorkingDir").asText().substring(1)).toFile());
        for (JsonNode kv : c.path("Env")) {
            String[] parts = kv.asText().split("=", 2);
            if (!parts[0].equals("PATH")) {
                pb.environment().put(parts[0], parts[1].startsWith("/") ? root.resolve(parts[1].substring(1)).toString() : parts[1]);
            }
        }
        pb.environment().putAll(serviceEnv);
        return pb;
    }

    /** Runs the image's entry point to its end (a one-off command, like ./baton on the host) and returns what it printed. */
    private static String runToEnd(String... args) throws Exception {
        Path log = Files.createTempFile(logs(), "host-", ".log");
        Process p = entryPoint(List.of(args), Map.of("JAVA_TOOL_OPTIONS", "-Xmx256m")).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        STARTED.put("run-" + p.pid(), new Started("run-" + p.pid(), "(host)", p, log, -1));
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("baton %s exits", String.join(" ", args)).isTrue();
        String out = Files.readString(log);
        assertThat(p.exitValue()).as("exit code of baton %s; it printed:%n%s", String.join(" ", args), out).isZero();
        return out;
    }

    private static long completedLines() {
        return ECHO_COMPLETED.matcher(STARTED.get("dispatcher").output()).results().count();
    }

    private static int status(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Each process's output, kept after the run (target/compose-rehearsal) for a failure's reader. */
    private static Path logs() throws IOException {
        return Files.createDirectories(Path.of(System.getProperty("baton.rehearsal.logs", "target/compose-rehearsal")));
    }

    private static Path composeDir() {
        return Path.of(System.getProperty("baton.compose.dir", "../compose"));
    }

    /** The image config and its layers unpacked under {@link #root}, as ImageTarballIT reads them. */
    private static void unpack(Path tarball) throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        try (InputStream in = Files.newInputStream(tarball)) {
            Tar.read(in, (name, type, data) -> {
                if (type == Tar.FILE) {
                    entries.put(name, data.readAllBytes());
                }
            });
        }
        JsonNode manifest = JSON.readTree(entries.get("manifest.json")).get(0);
        imageConfig = JSON.readTree(entries.get(manifest.get("Config").asText()));
        for (JsonNode layer : manifest.get("Layers")) {
            try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(entries.get(layer.asText())))) {
                Tar.read(in, (name, type, data) -> {
                    String path = name.replaceFirst("^\\./", "").replaceFirst("/$", "");
                    Path target = root.resolve(path).normalize();
                    if (path.isEmpty() || !target.startsWith(root)) {
                        return;
                    }
                    if (type == Tar.DIRECTORY) {
                        Files.createDirectories(target);
                    } else if (type == Tar.FILE) {
                        Files.createDirectories(target.getParent());
                        Files.copy(data, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    }
                });
            }
        }
    }
}
