package dev.baton.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The demo's progress: a bar redrawn in place on a terminal, a plain line every second otherwise
 * (logs, CI). Counts dispatched, resolved, in flight and the rate since the start.
 */
final class Progress implements AutoCloseable {

    private final PrintStream out;
    private final List<? extends CompletableFuture<?>> futures;
    private final long startNanos;
    private final boolean tty;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "baton-demo-progress");
        t.setDaemon(true);
        return t;
    });

    Progress(PrintStream out, List<? extends CompletableFuture<?>> futures, long startNanos) {
        this(out, futures, startNanos, System.console() != null);
    }

    Progress(PrintStream out, List<? extends CompletableFuture<?>> futures, long startNanos, boolean tty) {
        this.out = out;
        this.futures = futures;
        this.startNanos = startNanos;
        this.tty = tty;
        timer.scheduleAtFixedRate(this::print, tty ? 200 : 1000, tty ? 200 : 1000, TimeUnit.MILLISECONDS);
    }

    /** One progress line; public to tests through {@link #line()}. */
    String line() {
        int dispatched = futures.size();
        long resolved = futures.stream().filter(CompletableFuture::isDone).count();
        double seconds = Math.max(1e-3, (System.nanoTime() - startNanos) / 1e9);
        return String.format("progress  dispatched %d, resolved %d, in flight %d, %.0f/s", dispatched, resolved, dispatched - resolved,
                resolved / seconds);
    }

    private void print() {
        if (tty) {
            int width = 30;
            long resolved = futures.stream().filter(CompletableFuture::isDone).count();
            int filled = futures.isEmpty() ? width : (int) (width * resolved / futures.size());
            out.print("\r[" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + line().substring(10));
        } else {
            out.println(line());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        print();
        if (tty) {
            out.println();
        }
    }
}
