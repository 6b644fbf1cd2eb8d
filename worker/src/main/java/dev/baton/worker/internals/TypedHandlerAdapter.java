package dev.baton.worker.internals;

import java.util.Objects;

import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.schemas.payload.PayloadConversionException;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.worker.ActivityContext;
import dev.baton.worker.ActivityHandler;
import dev.baton.worker.TerminalActivityException;
import dev.baton.worker.TypedActivityHandler;

/**
 * A {@link TypedActivityHandler} as the worker runs it: the input decoded by the converter of its
 * content type, the output encoded by the converter of its class and labelled with that converter's
 * content type. Payloads that do not convert fail the activity {@code terminal:}.
 */
public final class TypedHandlerAdapter<I> implements ActivityHandler {

    private final String activityType;
    private final Class<I> inputType;
    private final TypedActivityHandler<I, ?> handler;
    private final PayloadConverters converters;

    public TypedHandlerAdapter(String activityType, Class<I> inputType, TypedActivityHandler<I, ?> handler, PayloadConverters converters) {
        this.activityType = Objects.requireNonNull(activityType, "activityType");
        this.inputType = Objects.requireNonNull(inputType, "inputType");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.converters = Objects.requireNonNull(converters, "converters");
    }

    /** Bytes without a content type: read as {@code application/octet-stream}, so only a {@code byte[]} handler accepts them. */
    @Override
    public byte[] handle(ActivityContext ctx, byte[] input) throws Exception {
        return handlePayload(ctx, EncodedPayload.octetStream(input)).data();
    }

    @Override
    public EncodedPayload handlePayload(ActivityContext ctx, EncodedPayload input) throws Exception {
        I value;
        try {
            value = converters.decode(input, inputType);
        } catch (PayloadConversionException e) {
            throw new TerminalActivityException("input of activity type '" + activityType + "' (" + input.contentType()
                    + ") cannot be read as " + inputType.getName() + ": " + e.getMessage(), e);
        }
        Object output = handler.handle(ctx, value);
        if (ctx instanceof Execution e && e.completesLater()) {
            return null; // the async completion writes the output
        }
        try {
            return converters.encode(output);
        } catch (PayloadConversionException e) {
            throw new TerminalActivityException("output of activity type '" + activityType + "' cannot be written: " + e.getMessage(), e);
        }
    }
}
