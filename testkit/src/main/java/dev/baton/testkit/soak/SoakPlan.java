package dev.baton.testkit.soak;

import java.util.List;
import java.util.Map;

import dev.baton.testkit.WorkerSpec;

/**
 * What the soak runs besides its faults: two queues, a node that is served, one that is declared
 * but served by nobody, one never declared, the mix of worker processes, and which scenario each
 * activity of the paced stream plays.
 */
public final class SoakPlan {

    public static final String QUEUE = "soak";
    /** Served only by workers that serve {@link #QUEUE} too: their slots are shared by both. */
    public static final String SECOND_QUEUE = "soak2";
    /** Declared on both queues; the odd-numbered workers carry its label. */
    public static final String SERVED_NODE = "n1";
    /** Declared on {@link #QUEUE}, no worker carries its label: pins to it end {@code unavailable: unserved}. */
    public static final String IDLE_NODE = "n-idle";
    /** Never declared: pins to it are answered {@code unavailable: unknown node} at once. */
    public static final String UNKNOWN_NODE = "n-ghost";

    private SoakPlan() {
    }

    public static List<String> queues() {
        return List.of(QUEUE, SECOND_QUEUE);
    }

    /** The node topics the soak declares at set-up, {@code baton.tasks.<queue>.<node>}. */
    public static Map<String, List<String>> nodesByQueue() {
        return Map.of(QUEUE, List.of(SERVED_NODE, IDLE_NODE), SECOND_QUEUE, List.of(SERVED_NODE));
    }

    /**
     * The spec of the {@code n}-th worker started at set-up (from 1): odd ones serve both queues and
     * carry {@link #SERVED_NODE}'s label, even ones serve {@link #QUEUE} only. A killed worker is
     * replaced with its own spec, so the mix holds through the soak.
     */
    public static WorkerSpec workerSpec(int n) {
        return n % 2 == 1 ? new WorkerSpec(queues(), List.of(SERVED_NODE)) : WorkerSpec.of(QUEUE);
    }

    /**
     * What activity {@code i} of the stream plays. The new semantics take a few percent each (slots
     * of every hundred); the rest is the ordinary mix: 4% flaky, 2.5% terminal, 2% long, echo.
     */
    public static Scenario scenario(int i) {
        return switch (i % 100) {
            case 10 -> Scenario.JOINED_ECHO;
            case 60 -> Scenario.JOINED_FLAKY;
            case 20 -> Scenario.RESENT;
            case 30 -> Scenario.TAKEOVER;
            case 40 -> Scenario.CANCEL;
            case 52, 92 -> Scenario.PINNED_SERVED;
            case 55 -> Scenario.PINNED_UNSERVED;
            case 95 -> Scenario.PINNED_UNKNOWN;
            case 5, 45, 85 -> Scenario.SECOND_QUEUE;
            default -> i % 25 == 0 ? Scenario.FLAKY : i % 40 == 1 ? Scenario.TERMINAL : i % 50 == 3 ? Scenario.LONG : Scenario.ECHO;
        };
    }

    /** Whether activity {@code i}'s takeover or cancel has a joined caller besides its first (every other one). */
    public static boolean withJoinedCaller(int i) {
        return (i / 100) % 2 == 0;
    }

    /** The scenarios, each a few requests with its own acceptable outcomes ({@link SoakWorkload}). */
    public enum Scenario {
        ECHO, FLAKY, TERMINAL, LONG,
        /** A second caller, same site, attempt and idempotency key, another request id, sent right after the first. */
        JOINED_ECHO,
        /** As {@link #JOINED_ECHO}, the second caller sent while policy retries run (it names attempt 1, the run is past it). */
        JOINED_FLAKY,
        /** One request sent twice with the same request id. */
        RESENT,
        /** Attempt 2 sent while attempt 1 runs long. */
        TAKEOVER,
        /** A cancel sent while the activity runs long. */
        CANCEL,
        PINNED_SERVED, PINNED_UNSERVED, PINNED_UNKNOWN,
        /** Echo on the second queue, served by workers that serve both. */
        SECOND_QUEUE
    }
}
