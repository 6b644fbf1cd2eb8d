package dev.baton.embedded;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Shares one {@link EmbeddedKafka} broker among the tests of a class.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();
 * ... KAFKA.bootstrapServers() ...
 * }</pre>
 */
public final class EmbeddedKafkaExtension implements BeforeAllCallback, AfterAllCallback {

    private final EmbeddedKafka.Builder builder;
    private EmbeddedKafka kafka;

    public EmbeddedKafkaExtension() {
        this(EmbeddedKafka.builder());
    }

    public EmbeddedKafkaExtension(EmbeddedKafka.Builder builder) {
        this.builder = builder;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        kafka = builder.build().start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (kafka != null) {
            kafka.close();
            kafka = null;
        }
    }

    public String bootstrapServers() {
        return broker().bootstrapServers();
    }

    public EmbeddedKafka broker() {
        if (kafka == null) {
            throw new IllegalStateException("the broker starts before all tests; register the extension as a static field");
        }
        return kafka;
    }
}
