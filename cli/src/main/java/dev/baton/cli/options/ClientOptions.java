package dev.baton.cli.options;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import picocli.CommandLine.Option;

/** The options every process command takes: where the cluster is and a properties file. */
public final class ClientOptions {

    @Option(names = "--bootstrap-servers", description = "Kafka bootstrap servers (default: bootstrap.servers from --config, else localhost:9092)")
    String bootstrapServers;

    @Option(names = "--config", description = "A properties file with Kafka client settings (security, etc.) and Baton keys")
    Path config;

    /** Where {@code BATON_*} overrides are read; tests replace it. */
    Map<String, String> environment = System.getenv();

    /** Replaces where {@code BATON_*} overrides are read (tests); returns this. */
    public ClientOptions environment(Map<String, String> env) {
        this.environment = env;
        return this;
    }

    /**
     * The properties file's entries, then the {@code BATON_*} environment overrides on top
     * ({@link EnvironmentOverrides}), then {@code --bootstrap-servers}.
     */
    public Map<String, Object> clientConfig() {
        Map<String, Object> out = new HashMap<>();
        if (config != null) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(config)) {
                p.load(r);
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read --config " + config + ": " + e.getMessage(), e);
            }
            p.forEach((k, v) -> out.put(k.toString(), v));
        }
        out.putAll(EnvironmentOverrides.of(environment));
        if (bootstrapServers != null) {
            out.put("bootstrap.servers", bootstrapServers);
        }
        out.putIfAbsent("bootstrap.servers", "localhost:9092");
        return out;
    }
}
