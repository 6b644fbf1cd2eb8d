package dev.baton.worker;

/**
 * Runs one activity type on typed input and output. The input is read from the task's payload by the
 * converter of its content type; the returned value is written by the first converter that can
 * encode its class, and the completion carries that converter's content type (see
 * {@code dev.baton.schemas.payload.PayloadConverters}). Register with
 * {@link WorkerOptions.Builder#handler(String, Class, TypedActivityHandler)}:
 *
 * <pre>{@code
 * WorkerOptions.builder().queues("payments")
 *         .handler("charge", Charge.class, (ctx, charge) -> new Receipt(ctx.idempotencyKey(), charge.cents()));
 * }</pre>
 *
 * <p>Failing works as for {@link ActivityHandler}: {@link TerminalActivityException} is {@code terminal:},
 * anything else {@code retryable:}. Input that cannot be read as {@code I} fails the activity
 * {@code terminal:} without calling the handler: the same bytes would never read differently.
 *
 * @param <I> the input type
 * @param <O> the output type ({@code byte[]} for raw bytes, an Avro record, or anything Jackson writes)
 */
@FunctionalInterface
public interface TypedActivityHandler<I, O> {

    O handle(ActivityContext ctx, I input) throws Exception;
}
