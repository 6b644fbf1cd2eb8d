package dev.baton.embedded;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node in a child JVM of its own ({@link KafkaNodeMain}), on this JVM's class path: {@link #crash()}
 * is a real {@code kill -9} (the node's logs are recovered at its next start), {@link #stop()} a
 * SIGTERM (a controlled shutdown), and {@link #pause} a SIGSTOP and SIGCONT.
 */
final class ChildProcessNode implements NodeRuntime {

    private static final Logger log = LoggerFactory.getLogger(ChildProcessNode.class);

    /** How many of the child's last output lines are kept for the error of a failed start. */
    private static final int TAIL_LINES = 40;

    private final String name;
    private final Process process;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final Deque<String> tail = new ArrayDeque<>();

    private ChildProcessNode(String name, Process process) {
        this.name = name;
        this.process = process;
        Thread pump = new Thread(this::pump, "output-of-" + name);
        pump.setDaemon(true);
        pump.start();
    }

    /** Starts the node from its {@code server.properties} and returns once it serves as a broker. */
    static ChildProcessNode start(String name, Path serverProperties, Duration patience) {
        try {
            ChildJvm jvm = ChildJvm.start("kafka-node", List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                    KafkaNodeMain.class.getName(), List.of(serverProperties.toString()));
            ChildProcessNode node = new ChildProcessNode(name, jvm.process());
            if (!node.ready.await(patience.toMillis(), TimeUnit.MILLISECONDS)) {
                node.crash();
                throw new IllegalStateException(name + " did not start within " + patience + "; its last output:\n" + node.tail());
            }
            jvm.ready();
            return node;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the JVM of " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting " + name, e);
        }
    }

    @Override
    public void crash() {
        process.destroyForcibly();
        awaitExit();
    }

    @Override
    public void stop() {
        process.destroy();
        awaitExit();
    }

    @Override
    public void pause(Duration outage) throws InterruptedException {
        signal("STOP");
        try {
            Thread.sleep(outage.toMillis()); // the outage itself
        } finally {
            signal("CONT");
        }
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " (" + name + ") failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal + " for " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, e);
        }
    }

    private void awaitExit() {
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                log.warn("{} (pid {}) did not exit within 60 s of being signalled; killing it", name, process.pid());
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized String tail() {
        return String.join("\n", tail);
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                synchronized (this) {
                    tail.addLast(line);
                    if (tail.size() > TAIL_LINES) {
                        tail.removeFirst();
                    }
                }
                if (line.contains(KafkaNodeMain.READY)) {
                    ready.countDown();
                }
            }
        } catch (IOException e) {
            // the node is gone; whoever stopped it observes its exit
        }
    }
}
