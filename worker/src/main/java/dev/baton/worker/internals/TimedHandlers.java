package dev.baton.worker.internals;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.baton.metrics.BatonMetric;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.worker.ActivityContext;
import dev.baton.worker.ActivityHandler;
import dev.baton.worker.TerminalActivityException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Wraps each handler so its running time lands in {@code baton_handler_duration}, by activity type
 * and by how it ended ({@code completed}, {@code terminal} or {@code retryable}, as the runner will
 * report it). The handler's behaviour, exceptions included, is unchanged.
 */
public final class TimedHandlers {

    private TimedHandlers() {
    }

    /** {@code handlers} with every handler timed into {@code meters}. */
    public static Map<String, ActivityHandler> of(Map<String, ActivityHandler> handlers, MeterRegistry meters) {
        Map<String, ActivityHandler> out = new LinkedHashMap<>();
        handlers.forEach((type, handler) -> out.put(type, timed(type, handler, meters)));
        return out;
    }

    private static ActivityHandler timed(String type, ActivityHandler handler, MeterRegistry meters) {
        Timer completed = BatonMetric.HANDLER_DURATION.timer(meters, "activity_type", type, "result", "completed");
        Timer terminal = BatonMetric.HANDLER_DURATION.timer(meters, "activity_type", type, "result", "terminal");
        Timer retryable = BatonMetric.HANDLER_DURATION.timer(meters, "activity_type", type, "result", "retryable");
        return new ActivityHandler() {
            @Override
            public byte[] handle(ActivityContext ctx, byte[] input) throws Exception {
                return handler.handle(ctx, input);
            }

            @Override
            public EncodedPayload handlePayload(ActivityContext ctx, EncodedPayload input) throws Exception {
                long start = System.nanoTime();
                Timer ended = retryable;
                try {
                    EncodedPayload output = handler.handlePayload(ctx, input);
                    ended = completed;
                    return output;
                } catch (TerminalActivityException e) {
                    ended = terminal;
                    throw e;
                } finally {
                    ended.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
                }
            }
        };
    }
}
