package dev.baton.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.BindException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker (KRaft, broker and controller in one process) started in-process.
 *
 * <p>It is the embedded default of the demo and the broker every integration test runs against.
 * Ports are chosen once, when the instance is built, and kept across {@link #restart()}, so clients
 * built before a restart reconnect to the same address and find the same data.
 *
 * <pre>{@code
 * try (EmbeddedKafka kafka = EmbeddedKafka.builder().build().start()) {
 *     String bootstrap = kafka.bootstrapServers();
 * }
 * }</pre>
 *
 * <p>Not thread-safe: start, stop and restart from one thread.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);

    private final Path dataDir;
    private final boolean ownsDataDir;
    private final String clusterId;
    /** Whether the ports were chosen here (free a moment before the broker binds them), not by the builder. */
    private final boolean portsChosenHere;
    private int brokerPort;
    private int advertisedPort;
    private int controllerPort;
    private boolean startedOnce;
    private final Map<String, String> overrides;
    private final Security security;
    private KafkaRaftServer server;

    private EmbeddedKafka(Builder builder) {
        try {
            this.ownsDataDir = builder.dataDir == null;
            this.dataDir = ownsDataDir ? Files.createTempDirectory("baton-kafka-") : builder.dataDir;
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the broker's data directory", e);
        }
        this.clusterId = builder.clusterId;
        this.portsChosenHere = builder.brokerPort <= 0 && builder.advertisedPort <= 0;
        choosePorts(builder.brokerPort, builder.advertisedPort);
        this.overrides = Map.copyOf(builder.overrides);
        this.security = builder.security;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Formats the data directory if it is new, then starts the broker. Returns {@code this}. */
    public synchronized EmbeddedKafka start() {
        if (server != null) {
            throw new IllegalStateException("broker already running on " + bootstrapServers());
        }
        for (int attempt = 1; ; attempt++) {
            Properties props = brokerProperties();
            format(props);
            KafkaRaftServer started = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
            try {
                started.startup();
                server = started;
                startedOnce = true;
                log.info("Embedded Kafka broker started on {} (data {})", bootstrapServers(), dataDir);
                return this;
            } catch (RuntimeException e) {
                if (!portTakenMeanwhile(e) || attempt == 3) {
                    throw e;
                }
                // Another socket took a port between freePorts and the bind. A first start on ports of our own
                // choosing can move: nobody has been told them yet, and the fresh data dir is formatted again.
                log.warn("a port of the embedded broker was taken before it bound it ({}); starting on other ports", rootMessage(e));
                started.shutdown();
                started.awaitShutdown();
                Dirs.deleteRecursively(dataDir);
                try {
                    Files.createDirectories(dataDir);
                } catch (IOException io) {
                    throw new UncheckedIOException("cannot create the broker's data directory", io);
                }
                choosePorts(0, 0);
            }
        }
    }

    private boolean portTakenMeanwhile(RuntimeException e) {
        if (startedOnce || !portsChosenHere || !ownsDataDir) {
            return false;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.toString();
    }

    private void choosePorts(int fixedBroker, int fixedAdvertised) {
        int[] ports = freePorts(2); // distinct: chosen one after another, the two could be the same port
        this.brokerPort = fixedBroker > 0 ? fixedBroker : ports[0];
        this.advertisedPort = fixedAdvertised > 0 ? fixedAdvertised : brokerPort;
        this.controllerPort = ports[1] != brokerPort ? ports[1] : ports[0];
    }

    /** Stops the broker and keeps its data, so {@link #start()} can bring the same cluster back. */
    public synchronized void stop() {
        if (server == null) {
            return;
        }
        server.shutdown();
        server.awaitShutdown();
        server = null;
        log.info("Embedded Kafka broker on {} stopped", bootstrapServers());
    }

    /** Stops and starts the broker on the same data directory and ports. */
    public EmbeddedKafka restart() {
        stop();
        return start();
    }

    public boolean isRunning() {
        return server != null;
    }

    /** Where clients connect: the advertised port (the broker's own unless a relay sits in front of it). */
    public String bootstrapServers() {
        return "127.0.0.1:" + advertisedPort;
    }

    /**
     * Client settings for {@code user} on this broker: bootstrap servers, plus SASL/SCRAM and the
     * trust store when the broker is secured. Users other than the admin must first be given SCRAM
     * credentials (Admin#alterUserScramCredentials).
     */
    public Map<String, Object> clientConfig(String user, String password) {
        Map<String, Object> c = new HashMap<>();
        c.put("bootstrap.servers", bootstrapServers());
        if (security != null) {
            c.putAll(security.clientConfig(user, password));
        }
        return c;
    }

    /** Client settings of the super user when secured; just the bootstrap servers otherwise. */
    public Map<String, Object> adminConfig() {
        return security == null ? clientConfig(null, null) : clientConfig(security.adminUser, security.adminPassword);
    }

    /**
     * Gives each of {@code users} SCRAM-SHA-512 credentials with {@code password}, so that {@link #clientConfig(String,
     * String)} logs in as them. Needs a secured broker (a builder's {@code sasl} or {@code saslOverTls}).
     */
    public void addUsers(String password, String... users) {
        if (security == null) {
            throw new IllegalStateException("addUsers needs a secured broker (builder().sasl(...) or saslOverTls(...)); this one is plaintext");
        }
        List<UserScramCredentialAlteration> upserts = new ArrayList<>();
        for (String user : users) {
            upserts.add(new UserScramCredentialUpsertion(user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password));
        }
        try (Admin admin = Admin.create(adminConfig())) {
            admin.alterUserScramCredentials(upserts).all().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while adding users " + List.of(users), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not add users " + List.of(users) + " on " + bootstrapServers(), e);
        }
    }

    public boolean isSecured() {
        return security != null;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Stops the broker; deletes the data directory when this instance created it. */
    @Override
    public synchronized void close() {
        stop();
        if (ownsDataDir) {
            Dirs.deleteRecursively(dataDir);
        }
    }

    private Properties brokerProperties() {
        // One node: every internal topic must fit on it.
        Properties p = KraftNode.properties(1, "1@127.0.0.1:" + controllerPort, brokerPort, controllerPort, advertisedPort, dataDir, 1, 1);
        if (security != null) {
            p.putAll(security.brokerProperties(brokerPort, controllerPort));
        }
        p.putAll(overrides);
        return p;
    }

    private void format(Properties props) {
        Path config = dataDir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
            props.store(w, "written by EmbeddedKafka for storage formatting");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + config, e);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            List<String> args = new ArrayList<>(List.of("format", "-t", clusterId, "-c", config.toString(), "--ignore-formatted"));
            if (security != null) {
                // SCRAM credentials live in the metadata log; the admin's must be there before the first login.
                args.addAll(List.of("--add-scram", security.adminScramCredential()));
            }
            StorageTool.execute(args.toArray(String[]::new), ps);
        } catch (Exception e) {
            throw new IllegalStateException("formatting " + dataDir + " failed: " + out.toString(StandardCharsets.UTF_8), e);
        }
        log.debug("storage format: {}", out.toString(StandardCharsets.UTF_8).trim());
    }

    /** A port free on this host at the moment of asking, for a listener started soon after. */
    /**
     * {@code n} distinct free local ports: every socket is held open until all are chosen, so no two of them can be the
     * same port (asked for one at a time, a port closed a moment before may be handed out again: a cluster's two nodes
     * then failed to start with "Address already in use").
     */
    public static int[] freePorts(int n) {
        ServerSocket[] sockets = new ServerSocket[n];
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                sockets[i] = new ServerSocket(0);
                sockets[i].setReuseAddress(true);
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("no " + n + " free local ports", e);
        } finally {
            for (ServerSocket s : sockets) {
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // closing a listening socket we opened; nothing to do
                    }
                }
            }
        }
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free local port", e);
        }
    }

    /** Options of an {@link EmbeddedKafka}; every one has a working default. */
    public static final class Builder {
        private Path dataDir;
        private String clusterId = Uuid.randomUuid().toString();
        private int brokerPort;
        private int advertisedPort;
        private final Map<String, String> overrides = new HashMap<>();
        private Security security;

        private Builder() {
        }

        /**
         * Secures the client listener: SASL/SCRAM-SHA-512 logins, the {@code StandardAuthorizer}
         * denying whatever no ACL allows, and {@code adminUser} as the only super user.
         */
        public Builder sasl(String adminUser, String adminPassword) {
            this.security = new Security(adminUser, adminPassword, null, null, null);
            return this;
        }

        /**
         * As {@link #sasl}, over TLS: the client listener becomes SASL_SSL with this PKCS12 key
         * store; clients get {@code trustStore} in {@link #clientConfig}.
         */
        public Builder saslOverTls(String adminUser, String adminPassword, Path keyStore, Path trustStore, String storePassword) {
            this.security = new Security(adminUser, adminPassword, keyStore, trustStore, storePassword);
            return this;
        }

        /** Keep data here across restarts and JVMs; by default a temp dir deleted on close. */
        public Builder dataDir(Path dir) {
            this.dataDir = dir;
            return this;
        }

        /** The cluster id written when formatting; must stay the same for an existing data dir. */
        public Builder clusterId(String id) {
            this.clusterId = id;
            return this;
        }

        /** A fixed client port; by default a free one. */
        public Builder brokerPort(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("brokerPort must be in 0..65535, was " + port);
            }
            this.brokerPort = port;
            return this;
        }

        /**
         * The port the broker tells clients to use, when something relays it to {@link #brokerPort}
         * (the soak's cuttable link); by default the broker port itself.
         */
        public Builder advertisedPort(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("advertisedPort must be in 0..65535, was " + port);
            }
            this.advertisedPort = port;
            return this;
        }

        /** Any broker setting, applied after the single-node defaults. */
        public Builder brokerProperty(String key, String value) {
            overrides.put(key, value);
            return this;
        }

        public EmbeddedKafka build() {
            return new EmbeddedKafka(this);
        }
    }

    /**
     * The secured listener's settings. The controller listener uses SASL/PLAIN with the admin's
     * password in its JAAS entry: SCRAM cannot guard it, because SCRAM credentials are read from the
     * metadata log the controller itself serves.
     */
    private record Security(String adminUser, String adminPassword, Path keyStore, Path trustStore, String storePassword) {

        private Security {
            if (adminUser == null || adminUser.isBlank() || adminPassword == null || adminPassword.isBlank()) {
                throw new IllegalArgumentException("a secured broker needs an admin user and password");
            }
        }

        boolean tls() {
            return keyStore != null;
        }

        String adminScramCredential() {
            return "SCRAM-SHA-512=[name=" + adminUser + ",password=" + adminPassword + "]";
        }

        Map<String, String> brokerProperties(int brokerPort, int controllerPort) {
            Map<String, String> p = new HashMap<>();
            p.put("listeners", "SASL://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
            p.put("advertised.listeners", "SASL://127.0.0.1:" + brokerPort);
            p.put("listener.security.protocol.map", "SASL:" + (tls() ? "SASL_SSL" : "SASL_PLAINTEXT") + ",CONTROLLER:SASL_PLAINTEXT");
            p.put("inter.broker.listener.name", "SASL");
            p.put("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
            p.put("listener.name.sasl.sasl.enabled.mechanisms", "SCRAM-SHA-512");
            p.put("listener.name.sasl.scram-sha-512.sasl.jaas.config", jaas("org.apache.kafka.common.security.scram.ScramLoginModule", adminUser, adminPassword));
            p.put("sasl.mechanism.controller.protocol", "PLAIN");
            p.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
            p.put("listener.name.controller.plain.sasl.jaas.config",
                    jaas("org.apache.kafka.common.security.plain.PlainLoginModule", adminUser, adminPassword)
                            .replace(";", " user_" + adminUser + "=\"" + adminPassword + "\";"));
            p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            p.put("super.users", "User:" + adminUser);
            p.put("allow.everyone.if.no.acl.found", "false");
            if (tls()) {
                p.put("listener.name.sasl.ssl.keystore.location", keyStore.toString());
                p.put("listener.name.sasl.ssl.keystore.password", storePassword);
                p.put("listener.name.sasl.ssl.keystore.type", "PKCS12");
                p.put("listener.name.sasl.ssl.truststore.location", trustStore.toString());
                p.put("listener.name.sasl.ssl.truststore.password", storePassword);
                p.put("listener.name.sasl.ssl.truststore.type", "PKCS12");
            }
            return p;
        }

        Map<String, Object> clientConfig(String user, String password) {
            Map<String, Object> c = new HashMap<>();
            c.put("security.protocol", tls() ? "SASL_SSL" : "SASL_PLAINTEXT");
            c.put("sasl.mechanism", "SCRAM-SHA-512");
            c.put("sasl.jaas.config", jaas("org.apache.kafka.common.security.scram.ScramLoginModule", user, password));
            if (tls()) {
                c.put("ssl.truststore.location", trustStore.toString());
                c.put("ssl.truststore.password", storePassword);
                c.put("ssl.truststore.type", "PKCS12");
            }
            return c;
        }

        private static String jaas(String module, String user, String password) {
            return module + " required username=\"" + user + "\" password=\"" + password + "\";";
        }
    }
}
