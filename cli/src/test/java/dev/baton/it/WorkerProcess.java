package dev.baton.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A {@code baton worker} in its own JVM (the shaded CLI jar built before integration tests), so a
 * crash is a real {@code kill -9} and a drain a real SIGTERM.
 */
public final class WorkerProcess implements AutoCloseable {

    private final Process process;
    private final String workerId;
    private final CountDownLatch serving = new CountDownLatch(1);
    private final List<String> output = new ArrayList<>();

    private WorkerProcess(Process process, String workerId) {
        this.process = process;
        this.workerId = workerId;
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (output) {
                        output.add(line);
                    }
                    if (line.contains("serving")) {
                        serving.countDown();
                    }
                }
            } catch (IOException e) {
                // process gone
            }
        }, "worker-process-" + workerId);
        pump.setDaemon(true);
        pump.start();
    }

    public static WorkerProcess start(String bootstrap, String workerId, String queue, long drainTimeoutMs) {
        try {
            Path config = Files.createTempFile("baton-worker-", ".properties");
            // The broker's minimum session timeout: a killed worker's partitions move within seconds.
            Files.writeString(config, "session.timeout.ms=6000\nheartbeat.interval.ms=1000\n");
            Path jar = Path.of("target", "baton.jar");
            if (!Files.exists(jar)) {
                throw new IllegalStateException(jar.toAbsolutePath() + " is missing; integration tests run after `package`");
            }
            List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                    "-jar", jar.toString(), "worker", "--bootstrap-servers", bootstrap, "--config", config.toString(),
                    "--queue", queue, "--demo-handlers", "--worker-id", workerId, "--max-concurrent", "8",
                    "--drain-timeout-ms", Long.toString(drainTimeoutMs));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            WorkerProcess wp = new WorkerProcess(p, workerId);
            if (!wp.serving.await(60, TimeUnit.SECONDS)) {
                wp.kill9();
                throw new IllegalStateException("worker " + workerId + " did not start: " + wp.output());
            }
            return wp;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public String workerId() {
        return workerId;
    }

    /** A crash: no drain, no park, no tombstone. */
    public void kill9() {
        process.destroyForcibly();
        waitFor();
    }

    /** SIGTERM: the worker's shutdown hook drains it. */
    public void drain() {
        process.destroy();
        waitFor();
    }

    public List<String> output() {
        synchronized (output) {
            return List.copyOf(output);
        }
    }

    private void waitFor() {
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill9();
        }
    }
}
