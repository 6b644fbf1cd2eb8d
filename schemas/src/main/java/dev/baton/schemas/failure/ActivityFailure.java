package dev.baton.schemas.failure;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import dev.baton.events.Failure;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.schemas.payload.ReportLimits;
import dev.baton.schemas.payload.PayloadConverters;

/**
 * What made an activity fail, as the worker saw it: a type (the name a handler gave the failure, or
 * the thrown exception's class name), a message, optional application details, the stack as text and
 * the cause chain. Immutable. Built from a {@link Throwable} with {@link #from(Throwable)}; carried on
 * the wire as the Avro {@code Failure} record ({@link #toAvro()}, {@link #of(Failure)}).
 *
 * <p>Bounded so one failure cannot outgrow a record: each stack keeps at most {@link #MAX_STACK_CHARS}
 * characters and the chain at most {@link #MAX_CAUSES} causes (a cyclic chain ends where it repeats).
 *
 * @param type never blank
 * @param message never null (empty for none)
 * @param details application details, or null
 * @param stack the stack trace, one {@code at} frame a line; never null
 * @param cause what caused it, or null
 */
public record ActivityFailure(String type, String message, EncodedPayload details, String stack, ActivityFailure cause) {

    public static final int MAX_STACK_CHARS = ReportLimits.MAX_STACK_CHARS;
    public static final int MAX_MESSAGE_CHARS = 8 * 1024;
    public static final int MAX_TYPE_CHARS = 256;
    public static final int MAX_CAUSES = ReportLimits.MAX_CAUSES;

    /** Over-long type, message and stack are cut (a failure must still be reported), a blank type refused. */
    public ActivityFailure {
        Objects.requireNonNull(type, "type");
        if (type.isBlank()) {
            throw new IllegalArgumentException("a failure's type must not be blank, was '" + type + "'");
        }
        type = type.length() <= MAX_TYPE_CHARS ? type : type.substring(0, MAX_TYPE_CHARS);
        message = message == null ? "" : cut(message, MAX_MESSAGE_CHARS);
        stack = stack == null ? "" : cut(stack, MAX_STACK_CHARS);
    }

    /** A failure without stack, details or cause. */
    public static ActivityFailure of(String type, String message) {
        return new ActivityFailure(type, message, null, "", null);
    }

    /** {@code thrown} and its causes; the type of each is its class name. */
    public static ActivityFailure from(Throwable thrown) {
        return from(thrown, thrown.getClass().getName(), null);
    }

    /** {@code thrown} with the given type and details; its causes keep their class names. */
    public static ActivityFailure from(Throwable thrown, String type, EncodedPayload details) {
        List<Throwable> chain = chain(thrown);
        ActivityFailure cause = null;
        for (int i = chain.size() - 1; i >= 1; i--) {
            Throwable t = chain.get(i);
            cause = new ActivityFailure(t.getClass().getName(), t.getMessage(), null, stackOf(t), cause);
        }
        return new ActivityFailure(type, thrown.getMessage(), details, stackOf(thrown), cause);
    }

    /** The failure and its causes, outermost first. */
    public List<ActivityFailure> chain() {
        List<ActivityFailure> all = new ArrayList<>();
        for (ActivityFailure f = this; f != null; f = f.cause) {
            all.add(f);
        }
        return Collections.unmodifiableList(all);
    }

    /** The details read as {@code type} by the converter of their content type. */
    public <T> T detailsAs(Class<T> type, PayloadConverters converters) {
        if (details == null) {
            throw new IllegalStateException("failure " + this.type + " carries no details");
        }
        return converters.decode(details, type);
    }

    public Failure toAvro() {
        return Failure.newBuilder().setType(type).setMessage(message).setDetails(details == null ? null : details.toPayload())
                .setStack(stack).setCause(cause == null ? null : cause.toAvro()).build();
    }

    /** The record's failure, or null for none. A chain longer than {@link #MAX_CAUSES} is cut there. */
    public static ActivityFailure of(Failure failure) {
        return of(failure, 0);
    }

    private static ActivityFailure of(Failure failure, int depth) {
        if (failure == null) {
            return null;
        }
        ActivityFailure cause = depth >= MAX_CAUSES ? null : of(failure.getCause(), depth + 1);
        String type = failure.getType() == null || failure.getType().isBlank() ? "unknown" : failure.getType();
        return new ActivityFailure(type, failure.getMessage(), failure.getDetails() == null ? null : EncodedPayload.of(failure.getDetails()),
                failure.getStack(), cause);
    }

    @Override
    public String toString() {
        return type + (message.isEmpty() ? "" : ": " + message) + (cause == null ? "" : " (caused by " + cause + ")");
    }

    private static List<Throwable> chain(Throwable thrown) {
        List<Throwable> chain = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = thrown; t != null && chain.size() <= MAX_CAUSES && seen.add(t); t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }

    private static String stackOf(Throwable t) {
        StringBuilder text = new StringBuilder();
        for (StackTraceElement frame : t.getStackTrace()) {
            if (text.length() > MAX_STACK_CHARS) {
                break;
            }
            text.append("at ").append(frame).append('\n');
        }
        return cut(text.toString(), MAX_STACK_CHARS);
    }

    private static String cut(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 4) + "...\n";
    }
}
