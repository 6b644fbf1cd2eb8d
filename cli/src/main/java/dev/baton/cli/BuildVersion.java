package dev.baton.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.IVersionProvider;

/**
 * What {@code baton --version} prints: Baton's version as the build wrote it into
 * {@code version.properties} (Maven resource filtering, so it holds for the jar, the image's
 * exploded classes and an IDE alike), then the versions of the Kafka client and of Java found at run time.
 */
public final class BuildVersion implements IVersionProvider {

    /** Baton's version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String baton() {
        String version = property(BuildVersion.class, "version.properties", "version");
        if (version.isBlank() || version.contains("${")) {
            throw new IllegalStateException("version.properties holds no version filtered by the build, was '" + version + "'");
        }
        return version;
    }

    /** The kafka-clients version on the class path, from the properties file that jar carries. */
    public static String kafkaClients() {
        return property(Admin.class, "/kafka/kafka-version.properties", "version");
    }

    @Override
    public String[] getVersion() {
        return new String[] {"baton " + baton(),
            "Kafka clients " + kafkaClients() + ", Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")"};
    }

    private static String property(Class<?> anchor, String resource, String key) {
        Properties p = new Properties();
        try (InputStream in = anchor.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing beside " + anchor.getName());
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource + ": " + e.getMessage(), e);
        }
        return p.getProperty(key, "").strip();
    }
}
