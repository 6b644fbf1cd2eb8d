package dev.baton.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.baton.embedded.ChildJvm;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@code baton} command in its own JVM, on this JVM's class path, so a crash is a real
 * {@code kill -9} and a stop a real SIGTERM. Used by the soak and the failure integration tests.
 * The command ({@code baton-cli}) must be on the class path: the testkit names its main class
 * without depending on it, so the command can depend on the testkit.
 */
public final class BatonProcess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BatonProcess.class);
    /** An exit slower than this is logged. */
    private static final long SLOW_EXIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** The {@code baton} command's entry point, in {@code baton-cli}. */
    public static final String MAIN_CLASS = "dev.baton.cli.BatonCommand";

    private final String name;
    private final Process process;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final List<String> output = new ArrayList<>();

    private BatonProcess(String name, Process process, String readyLine) {
        this.name = name;
        this.process = process;
        Thread pump = new Thread(() -> pump(readyLine), "output-of-" + name);
        pump.setDaemon(true);
        pump.start();
    }

    /**
     * Starts {@code baton <args>} and waits until it prints a line containing {@code readyLine}.
     *
     * @throws IllegalStateException if it does not within {@code timeout}; the message carries its output
     */
    public static BatonProcess start(String name, String readyLine, Duration timeout, List<String> args) {
        return startMain(name, MAIN_CLASS, readyLine, timeout, args);
    }

    /**
     * As {@link #start}, running {@code mainClass} (on this JVM's class path) instead of the
     * {@code baton} command: a test's own worker program, say, to be killed for real.
     */
    public static BatonProcess startMain(String name, String mainClass, String readyLine, Duration timeout, List<String> args) {
        return startMain(name, mainClass, readyLine, timeout, args, DEFAULT_MAX_HEAP);
    }

    /** The {@code -Xmx} of every process this class starts unless told otherwise. */
    public static final String DEFAULT_MAX_HEAP = "384m";

    private static BatonProcess startMain(String name, String mainClass, String readyLine, Duration timeout, List<String> args,
                                          String maxHeap) {
        try {
            ChildJvm jvm = ChildJvm.start(kind(mainClass, args), List.of("-Xmx" + maxHeap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                    mainClass, args);
            BatonProcess p = new BatonProcess(name, jvm.process(), readyLine);
            if (!p.ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.kill9();
                throw new IllegalStateException(name + " did not print '" + readyLine + "' within " + timeout + ": " + p.tail(20));
            }
            jvm.ready();
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting " + name, e);
        }
    }

    /** What shares a class-data archive: a {@code baton} command's processes by subcommand, any other program by class. */
    private static String kind(String mainClass, List<String> args) {
        return MAIN_CLASS.equals(mainClass) && !args.isEmpty() ? args.get(0) : mainClass;
    }

    /**
     * Runs every start at once, each on a thread of its own, and returns what they started in their
     * order. A JVM's start and a consumer group's first rebalance are mostly waiting, so processes
     * started together are up in about the time of the slowest. If any start fails, the others are
     * closed once they are up and the first failure is thrown.
     */
    @SafeVarargs
    public static <T extends AutoCloseable> List<T> startAll(Supplier<? extends T>... starts) {
        return startAll(List.of(starts));
    }

    /** As {@link #startAll(Supplier[])}, the starts in a list. */
    public static <T extends AutoCloseable> List<T> startAll(List<? extends Supplier<? extends T>> starts) {
        List<CompletableFuture<T>> started = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, starts.size()));
        try {
            for (Supplier<? extends T> start : starts) {
                started.add(CompletableFuture.supplyAsync(start::get, threads));
            }
            CompletableFuture.allOf(started.toArray(CompletableFuture[]::new)).join();
        } catch (CompletionException e) {
            for (CompletableFuture<T> f : started) {
                if (!f.isCompletedExceptionally()) {
                    try {
                        f.join().close();
                    } catch (Exception closing) {
                        e.addSuppressed(closing);
                    }
                }
            }
            throw e.getCause() instanceof RuntimeException r ? r : e;
        } finally {
            threads.shutdown();
        }
        return started.stream().map(CompletableFuture::join).toList();
    }

    /**
     * {@code baton worker --demo-handlers} for one queue. Its consumer uses the broker's minimum
     * session timeout, so a killed worker's partitions move within seconds.
     */
    public static BatonProcess worker(String bootstrap, String workerId, String queue, long drainTimeoutMs) {
        return worker(bootstrap, workerId, WorkerSpec.of(queue), drainTimeoutMs);
    }

    /** As {@link #worker(String, String, String, long)}, serving the spec's queues and node labels (8 slots shared by them). */
    public static BatonProcess worker(String bootstrap, String workerId, WorkerSpec spec, long drainTimeoutMs) {
        return worker(bootstrap, workerId, spec, drainTimeoutMs, List.of());
    }

    /** As {@link #worker(String, String, WorkerSpec, long)}, with more {@code key=value} lines in its config file. */
    public static BatonProcess worker(String bootstrap, String workerId, WorkerSpec spec, long drainTimeoutMs, List<String> extraConfig) {
        List<String> lines = new ArrayList<>(List.of("session.timeout.ms=6000", "heartbeat.interval.ms=1000"));
        lines.addAll(extraConfig);
        lines.add("");
        Path config = ProcessConfig.write("worker", String.join("\n", lines));
        List<String> args = new ArrayList<>(List.of("worker", "--bootstrap-servers", bootstrap, "--config", config.toString(),
                "--demo-handlers", "--worker-id", workerId, "--max-concurrent", "8", "--drain-timeout-ms", Long.toString(drainTimeoutMs)));
        args.addAll(spec.arguments());
        return start(workerId, "serving", Duration.ofSeconds(90), args);
    }

    /**
     * {@code baton streams-app} with its own state dir and a standby replica. Its session and
     * transaction timeouts are the app's defaults, so the soak measures the takeover users get.
     */
    public static BatonProcess streamsApp(String bootstrap, String name, Path stateDir) {
        return streamsApp(bootstrap, name, stateDir, List.of());
    }

    /** As {@link #streamsApp(String, String, Path)}, with more {@code key=value} lines in its config file. */
    public static BatonProcess streamsApp(String bootstrap, String name, Path stateDir, List<String> extraConfig) {
        return streamsApp(bootstrap, name, stateDir, extraConfig, DEFAULT_MAX_HEAP);
    }

    /** As {@link #streamsApp(String, String, Path, List)}, with {@code -Xmx<maxHeap>} (e.g. {@code 512m}). */
    public static BatonProcess streamsApp(String bootstrap, String name, Path stateDir, List<String> extraConfig, String maxHeap) {
        List<String> lines = new ArrayList<>(List.of("state.dir=" + stateDir, "num.standby.replicas=1",
                "commit.interval.ms=100"));
        lines.addAll(extraConfig);
        lines.add("");
        Path config = ProcessConfig.write(name, String.join("\n", lines));
        return startMain(name, MAIN_CLASS, "streams app RUNNING", Duration.ofMinutes(3),
                List.of("streams-app", "--bootstrap-servers", bootstrap, "--config", config.toString()), maxHeap);
    }

    public String name() {
        return name;
    }

    /** The operating system's id of the process, for {@code jcmd} and the like. */
    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** A crash: SIGKILL, no shutdown hook runs. */
    public void kill9() {
        process.destroyForcibly();
        waitFor();
    }

    /** SIGTERM: the command's shutdown hook runs (a worker drains, the streams app closes). */
    public void stop() {
        process.destroy();
        waitFor();
    }

    public List<String> output() {
        synchronized (output) {
            return List.copyOf(output);
        }
    }

    private List<String> tail(int lines) {
        List<String> all = output();
        return all.subList(Math.max(0, all.size() - lines), all.size());
    }

    private void pump(String readyLine) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                synchronized (output) {
                    output.add(line);
                    if (output.size() > 5_000) {
                        output.remove(0);
                    }
                }
                if (line.contains(readyLine)) {
                    ready.countDown();
                }
            }
        } catch (IOException e) {
            // the process is gone; its exit is observed by whoever killed it
        }
    }

    private void waitFor() {
        long start = System.nanoTime();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                log.warn("{} (pid {}) did not exit within 60 s of being signalled; killing it", name, process.pid());
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            } else if (System.nanoTime() - start > SLOW_EXIT_NANOS) {
                // a slow exit is time every test that stops this process pays, on a build that has 20 minutes
                log.warn("{} (pid {}) took {} ms to exit", name, process.pid(), (System.nanoTime() - start) / 1_000_000);
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
