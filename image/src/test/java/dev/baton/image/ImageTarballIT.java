package dev.baton.image;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The baton image as {@code mvn -Pimage package} writes it ({@code image/target/baton-image.tar}, a
 * {@code docker save} tarball): its layers are whole, its entry point runs Baton on the class path Jib
 * wrote with the users' {@code /opt/baton/lib} first, it carries nothing production does not run, and the
 * entry point's class path, run by this JDK over the unpacked layers, prints the build's version.
 *
 * <p>Built on any base ({@code -Dbaton.image.base=scratch} here, the only one reachable without a
 * registry): only the application's layers are checked, and the run uses the host's {@code java} in
 * place of the base's.
 */
class ImageTarballIT {

    private static final Pattern NOT_IN_PRODUCTION = Pattern.compile("baton-bench|duckdb|tpch|guava", Pattern.CASE_INSENSITIVE);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path root;

    private static JsonNode manifest;
    private static JsonNode config;
    /** Each layer file the manifest names, in order, with its bytes; the image's files as the layers unpack them. */
    private static final Map<String, byte[]> LAYERS = new LinkedHashMap<>();
    private static final List<String> DIFF_IDS = new ArrayList<>();
    private static final TreeSet<String> FILES = new TreeSet<>();

    @BeforeAll
    static void unpack() throws IOException, NoSuchAlgorithmException {
        Path tarball = Path.of(System.getProperty("baton.image.tar", "target/baton-image.tar"));
        assertThat(tarball).as("the image tarball (mvn -Pimage package)").isRegularFile();
        Map<String, byte[]> entries = new LinkedHashMap<>();
        try (InputStream in = Files.newInputStream(tarball)) {
            Tar.read(in, (name, type, data) -> {
                if (type == Tar.FILE) {
                    entries.put(name, data.readAllBytes());
                }
            });
        }
        manifest = JSON.readTree(entries.get("manifest.json")).get(0);
        config = JSON.readTree(entries.get(manifest.get("Config").asText()));
        for (JsonNode layer : manifest.get("Layers")) {
            LAYERS.put(layer.asText(), entries.get(layer.asText()));
        }
        for (Map.Entry<String, byte[]> layer : LAYERS.entrySet()) {
            if (layer.getValue() == null) {
                continue;
            }
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            try (InputStream in = new DigestInputStream(new GZIPInputStream(new java.io.ByteArrayInputStream(layer.getValue())), sha)) {
                Tar.read(in, (name, type, data) -> {
                    String path = name.replaceFirst("^\\./", "").replaceFirst("/$", "");
                    if (path.isEmpty()) {
                        return;
                    }
                    Path target = root.resolve(path).normalize();
                    if (!target.startsWith(root)) {
                        throw new IOException("a layer entry outside the image: " + name);
                    }
                    if (type == Tar.DIRECTORY) {
                        Files.createDirectories(target);
                    } else if (type == Tar.FILE) {
                        Files.createDirectories(target.getParent());
                        try (var out = Files.newOutputStream(target)) {
                            data.transferTo(out);
                        }
                        FILES.add(path);
                    }
                });
                in.transferTo(java.io.OutputStream.nullOutputStream()); // the tar's end-of-archive padding counts in the digest
            }
            DIFF_IDS.add("sha256:" + HexFormat.of().formatHex(sha.digest()));
        }
        long bytes = Files.size(tarball);
        System.out.printf("baton image: %d layers, %.1f MB (%d bytes), %d jars%n", LAYERS.size(), bytes / 1e6, bytes,
                FILES.stream().filter(f -> f.startsWith("app/libs/")).count());
    }

    @Test
    void shouldHoldEveryLayerTheManifestNamesWhole() {
        assertThat(LAYERS).isNotEmpty();
        assertThat(LAYERS).allSatisfy((name, bytes) -> assertThat(bytes).as("layer %s in the tarball", name).isNotNull());
        List<String> declared = new ArrayList<>();
        config.get("rootfs").get("diff_ids").forEach(id -> declared.add(id.asText()));
        assertThat(DIFF_IDS).as("each layer's uncompressed digest, as the config declares it").isEqualTo(declared);
        List<String> comments = new ArrayList<>();
        config.get("history").forEach(h -> comments.add(h.path("comment").asText()));
        assertThat(comments).contains("dependencies", "resources", "classes", "jvm arg files", "extra files");
        // Baton's own modules: "project dependencies" when the reactor builds them with the image (CI's
        // fresh clone), "snapshot dependencies" when the image module is built alone against installed jars.
        assertThat(comments).containsAnyOf("project dependencies", "snapshot dependencies");
        assertThat(manifest.get("RepoTags").toString()).contains("baton:" + version(), "baton:dev");
    }

    @Test
    void shouldStartBatonOnJibsClassPathFileAsUid10001() {
        JsonNode c = config.get("config");
        assertThat(strings(c.get("Entrypoint"))).containsExactly("java", "-XX:MaxRAMPercentage=75", "-cp", "@/app/jib-classpath-file",
                "dev.baton.cli.BatonCommand");
        assertThat(c.get("User").asText()).isEqualTo("10001:10001");
        assertThat(c.get("WorkingDir").asText()).isEqualTo("/opt/baton");
        assertThat(strings(c.get("Env"))).contains("BATON_LIB_DIR=/opt/baton/lib");
        assertThat(c.get("ExposedPorts").has("9400/tcp")).isTrue();
        assertThat(c.get("Labels").get("org.opencontainers.image.version").asText()).isEqualTo(version());
        assertThat(c.get("Labels").get("org.opencontainers.image.licenses").asText()).isEqualTo("Apache-2.0");
    }

    @Test
    void shouldPutTheUsersLibDirectoryFirstOnAClassPathWhoseEveryOtherEntryIsInTheImage() throws IOException {
        List<String> classPath = classPath();

        assertThat(classPath.get(0)).isEqualTo("/opt/baton/lib/*");
        assertThat(classPath).contains("/app/classes", "/app/resources");
        assertThat(classPath.subList(1, classPath.size())).allSatisfy(
                entry -> assertThat(root.resolve(entry.substring(1))).as("class path entry %s", entry).exists());
        assertThat(root.resolve("opt/baton/lib")).isDirectory();
        assertThat(FILES).contains("opt/baton/LICENSE", "opt/baton/NOTICE", "app/jib-main-class-file");
        assertThat(Files.readString(root.resolve("app/jib-main-class-file")).strip()).isEqualTo("dev.baton.cli.BatonCommand");
    }

    @Test
    void shouldCarryNoJarThatProductionDoesNotRun() {
        List<String> jars = FILES.stream().filter(f -> f.startsWith("app/libs/") && f.endsWith(".jar")).toList();

        assertThat(jars).contains("app/libs/baton-cli-" + version() + ".jar", "app/libs/baton-worker-" + version() + ".jar")
                .noneMatch(j -> NOT_IN_PRODUCTION.matcher(j).find());
        assertThat(FILES).noneMatch(f -> NOT_IN_PRODUCTION.matcher(f).find());
    }

    @Test
    void shouldPrintTheBuildsVersionWhenItsEntryPointRunsOnThisJdk() throws Exception {
        String out = run("--version");

        assertThat(out).startsWith("baton " + version() + "\n").contains("Kafka clients");
    }

    @Test
    void shouldOfferNoBenchCommand() throws Exception {
        String out = run("--help");

        assertThat(out).contains("worker", "dispatch", "streams-app").doesNotContainPattern("(?m)^\\s+bench\\b");
    }

    /** Runs the image's entry point with this JDK's {@code java}, its class path moved under the unpacked image. */
    private static String run(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        for (String arg : strings(config.get("config").get("Entrypoint"))) {
            if (arg.equals("java")) {
                command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            } else if (arg.startsWith("@/")) {
                command.add(classPath().stream().map(e -> root.resolve(e.substring(1)).toString()).collect(Collectors.joining(":")));
            } else {
                command.add(arg);
            }
        }
        command.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(root.resolve("opt/baton").toFile()).redirectErrorStream(true);
        pb.environment().put("BATON_LIB_DIR", root.resolve("opt/baton/lib").toString());
        Process p = pb.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.getInputStream().transferTo(out);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("baton %s exits", String.join(" ", args)).isTrue();
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("exit code of baton %s; it printed:%n%s", String.join(" ", args), text).isZero();
        return text;
    }

    private static List<String> classPath() throws IOException {
        return List.of(Files.readString(root.resolve("app/jib-classpath-file")).strip().split(":"));
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static String version() {
        return System.getProperty("baton.version", "0.1.0-SNAPSHOT");
    }
}
