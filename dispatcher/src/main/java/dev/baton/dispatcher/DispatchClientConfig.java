package dev.baton.dispatcher;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import dev.baton.schemas.payload.ReportLimits;

/** Configuration of a {@link DispatchClient}. Keys not defined here pass through to the Kafka clients. */
public final class DispatchClientConfig extends AbstractConfig {

    public static final String BOOTSTRAP_SERVERS_CONFIG = "bootstrap.servers";
    public static final String CLIENT_ID_CONFIG = "baton.client.id";
    private static final String CLIENT_ID_DOC = "Stable identity of this client instance: results are keyed by it, and a restarted client with the same id receives what it missed through its UnmatchedResultHandler.";
    public static final String SCHEMA_REGISTRY_URL_CONFIG = "schema.registry.url";
    public static final String MAX_PAYLOAD_BYTES_CONFIG = "max.payload.bytes";
    public static final String MAX_PENDING_CONFIG = "max.pending";
    private static final String MAX_PENDING_DOC = "Most dispatches waiting for an outcome at once; more fail fast with PendingLimitExceededException.";
    public static final String DISPATCH_TIMEOUT_MS_CONFIG = "dispatch.timeout.ms";
    public static final String CLIENT_ID_WAIT_MS_CONFIG = "client.id.wait.ms";
    private static final String CLIENT_ID_WAIT_MS_DOC = "How long create waits for another live client with this baton.client.id "
            + "to let go of it before it fails with ClientIdInUseException (0 = fail at once). A client closed lets go at once; one "
            + "killed holds the id until the broker ends its group membership (group.consumer.session.timeout.ms, 45 s by default, "
            + "60 s at most by default), so the default covers a restart after a crash.";
    private static final String DISPATCH_TIMEOUT_MS_DOC = "How long a dispatch future waits before failing with a TimeoutException (0 = no limit; activities may run for hours). A later outcome goes to the UnmatchedResultHandler.";

    public static final ConfigDef CONFIG = new ConfigDef()
            .define(BOOTSTRAP_SERVERS_CONFIG, Type.STRING, "localhost:9092", Importance.HIGH, "Kafka bootstrap servers.")
            .define(CLIENT_ID_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, ConfigDef.CompositeValidator.of(new ConfigDef.NonEmptyString(),
                    ConfigDef.LambdaValidator.with((name, value) -> {
                        // the reply key of every dispatch, kept in site rows: the streams app refuses a longer one
                        if (value != null && value.toString().length() > ReportLimits.MAX_ID_CHARS) {
                            throw new ConfigException(name, "(" + value.toString().length() + " characters)",
                                    "must have <= " + ReportLimits.MAX_ID_CHARS + " characters");
                        }
                    }, () -> "at most " + ReportLimits.MAX_ID_CHARS + " characters")), Importance.HIGH, CLIENT_ID_DOC)
            .define(SCHEMA_REGISTRY_URL_CONFIG, Type.STRING, "kafka://", Importance.HIGH, "Schema registry: http(s)://, kafka:// or mem://.")
            .define(MAX_PAYLOAD_BYTES_CONFIG, Type.INT, 524_288, Range.atLeast(0), Importance.MEDIUM,
                    "Largest input accepted; keep it at most the streams app's max.payload.bytes (512 KiB by default).")
            .define(MAX_PENDING_CONFIG, Type.INT, 100_000, Range.atLeast(1), Importance.MEDIUM, MAX_PENDING_DOC)
            .define(DISPATCH_TIMEOUT_MS_CONFIG, Type.LONG, 0L, Range.atLeast(0), Importance.MEDIUM, DISPATCH_TIMEOUT_MS_DOC)
            .define(CLIENT_ID_WAIT_MS_CONFIG, Type.LONG, 60_000L, Range.atLeast(0), Importance.LOW, CLIENT_ID_WAIT_MS_DOC);

    public DispatchClientConfig(Map<String, ?> originals) {
        super(CONFIG, originals, false);
    }

    public String clientId() {
        return getString(CLIENT_ID_CONFIG);
    }

    /** Kafka client settings: everything not Baton's own, plus bootstrap servers. */
    public Map<String, Object> kafkaConfig() {
        Map<String, Object> p = new HashMap<>(originals());
        p.keySet().removeAll(CONFIG.names());
        p.put(BOOTSTRAP_SERVERS_CONFIG, getString(BOOTSTRAP_SERVERS_CONFIG));
        return p;
    }
}
