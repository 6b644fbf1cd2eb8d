package dev.baton.testkit.junit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.testkit.LocalCluster;
import dev.baton.worker.ActivityCompletionClient;
import dev.baton.worker.ActivityHandler;
import dev.baton.worker.TypedActivityHandler;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A running Baton for a test: the embedded broker, topics for the queues, the streams app, one worker
 * serving the queues with the handlers registered here, a {@link DispatchClient} and an
 * {@link ActivityCompletionClient}. On a static field it starts once for the class and closes after
 * it; on an instance field, once per test.
 *
 * <pre>{@code
 * @RegisterExtension
 * static BatonExtension baton = BatonExtension.builder().queues("payments")
 *         .handler("charge", Charge.class, (ctx, charge) -> new Receipt(charge.cents()))
 *         .build();
 *
 * @Test
 * void charges(DispatchClient client) throws Exception {
 *     Receipt r = client.dispatch(baton.request("charge").input(new Charge(1200)).build(), Receipt.class).get();
 * }
 * }</pre>
 *
 * <p>Test methods may take a {@link DispatchClient}, {@link ActivityCompletionClient} or {@link LocalCluster}
 * parameter. Unmatched results (the outbox) are kept in {@link #unmatched()}. Not for parallel test
 * execution within one class.
 */
public final class BatonExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback,
        ParameterResolver {

    private final List<String> queues;
    private final int partitions;
    private final Map<String, Object> streamsOverrides;
    private final List<Consumer<WorkerOptions.Builder>> handlers;
    private final Consumer<WorkerOptions.Builder> workerSetup;
    private final List<ActivityOutcome> unmatched = Collections.synchronizedList(new ArrayList<>());
    private LocalCluster cluster;
    private DispatchClient client;
    private ActivityCompletionClient completions;
    private Worker worker;
    private boolean perClass;

    private BatonExtension(Builder b) {
        this.queues = List.copyOf(b.queues);
        this.partitions = b.partitions;
        this.streamsOverrides = Map.copyOf(b.streamsOverrides);
        this.handlers = List.copyOf(b.handlers.values());
        this.workerSetup = b.workerSetup;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        perClass = true;
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stop();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (!perClass) {
            start();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!perClass) {
            stop();
        }
    }

    private void start() {
        cluster = LocalCluster.start(partitions, queues, streamsOverrides);
        client = cluster.client("baton-test-" + UUID.randomUUID().toString().substring(0, 8), unmatched::add);
        completions = ActivityCompletionClient.create(cluster.clientConfig(), "kafka://");
        WorkerOptions.Builder options = WorkerOptions.builder().queues(queues).workerId("baton-test-worker")
                .drainTimeout(Duration.ofSeconds(2));
        handlers.forEach(h -> h.accept(options));
        workerSetup.accept(options);
        worker = cluster.worker(options);
    }

    private void stop() {
        if (completions != null) {
            completions.close();
        }
        if (cluster != null) {
            cluster.close(); // the worker and the client with it
        }
        cluster = null;
        client = null;
        completions = null;
        worker = null;
    }

    public LocalCluster cluster() {
        return requireStarted(cluster);
    }

    public DispatchClient client() {
        return requireStarted(client);
    }

    public ActivityCompletionClient completionClient() {
        return requireStarted(completions);
    }

    public Worker worker() {
        return requireStarted(worker);
    }

    /** Results that matched no pending dispatch (the outbox), in arrival order. */
    public List<ActivityOutcome> unmatched() {
        synchronized (unmatched) {
            return List.copyOf(unmatched);
        }
    }

    /** A request on the first queue for {@code activityType} at a fresh site ({@code test/<uuid>/1}), to complete. */
    public ActivityRequest.Builder request(String activityType) {
        return ActivityRequest.builder().site("test", UUID.randomUUID().toString(), "1").queue(queues.get(0))
                .activityType(activityType);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == DispatchClient.class || type == ActivityCompletionClient.class || type == LocalCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        if (type == DispatchClient.class) {
            return client();
        }
        return type == ActivityCompletionClient.class ? completionClient() : cluster();
    }

    private static <T> T requireStarted(T component) {
        if (component == null) {
            throw new IllegalStateException("Baton is not running: register BatonExtension with @RegisterExtension and use it inside a test");
        }
        return component;
    }

    /** What the extension starts; queues default to {@code default}, 2 partitions per topic. */
    public static final class Builder {
        private final List<String> queues = new ArrayList<>();
        private int partitions = 2;
        private final Map<String, Object> streamsOverrides = new HashMap<>();
        private Consumer<WorkerOptions.Builder> workerSetup = options -> { };
        private final Map<String, Consumer<WorkerOptions.Builder>> handlers = new HashMap<>();

        public Builder queues(String... names) {
            queues.addAll(List.of(names));
            return this;
        }

        public Builder partitions(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("partitions must be >= 1, was " + count);
            }
            this.partitions = count;
            return this;
        }

        /** A streams app setting (e.g. {@code "heartbeat.window.ms"}), as in its config file. */
        public Builder streamsConfig(String key, Object value) {
            streamsOverrides.put(Objects.requireNonNull(key, "key"), value);
            return this;
        }

        public Builder handler(String activityType, ActivityHandler handler) {
            handlers.put(activityType, options -> options.handler(activityType, handler));
            return this;
        }

        public <I> Builder handler(String activityType, Class<I> inputType, TypedActivityHandler<I, ?> handler) {
            handlers.put(activityType, options -> options.handler(activityType, inputType, handler));
            return this;
        }

        /** Anything else about the worker (converters, concurrency); runs after the handlers are registered. */
        public Builder worker(Consumer<WorkerOptions.Builder> setup) {
            this.workerSetup = Objects.requireNonNull(setup, "setup");
            return this;
        }

        public BatonExtension build() {
            if (queues.isEmpty()) {
                queues.add("default");
            }
            if (handlers.isEmpty()) {
                throw new IllegalArgumentException("register at least one handler: the extension's worker needs one, had none");
            }
            return new BatonExtension(this);
        }
    }
}
