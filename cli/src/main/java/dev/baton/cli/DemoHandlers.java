package dev.baton.cli;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import dev.baton.worker.ActivityHandler;
import dev.baton.worker.RetryableActivityException;
import dev.baton.worker.TerminalActivityException;

/** Activity handlers for the demo and for trying a cluster out. */
public final class DemoHandlers {

    private DemoHandlers() {
    }

    /**
     * {@code echo} returns its input; {@code flaky} fails {@code retryable:} on attempts 1 and 2;
     * {@code terminal} always fails {@code terminal:}; {@code long} runs for the milliseconds its
     * input names (default 2000), heartbeating.
     */
    public static Map<String, ActivityHandler> all() {
        return Map.of("echo", (ctx, input) -> input,
                "flaky", (ctx, input) -> {
                    if (ctx.attempt() < 3) {
                        throw new RetryableActivityException("flaky on attempt " + ctx.attempt());
                    }
                    return input;
                },
                "terminal", (ctx, input) -> {
                    throw new TerminalActivityException("this activity always fails");
                },
                "long", (ctx, input) -> {
                    long ms = input.length == 0 ? 2000 : Long.parseLong(new String(input, StandardCharsets.UTF_8).trim());
                    long end = System.nanoTime() + ms * 1_000_000;
                    while (System.nanoTime() < end && !ctx.isCancelled()) {
                        ctx.heartbeat(null);
                        Thread.sleep(Math.min(50, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
                    }
                    return input;
                });
    }
}
