package dev.baton.streams.state;

/**
 * What a deadline in the {@code deadlines} index means when it passes. The code is its key byte.
 * Deadlines that fall at the same instant on one site fire in declaration order.
 */
public enum DeadlineKind {
    /** A lease went silent: transport loss. */
    HEARTBEAT(1, true),
    /** The attempt ran too long. */
    START_TO_CLOSE(2, true),
    /** No worker took the task in time. */
    SCHEDULE_TO_START(3, true),
    /** The whole activity, all attempts, took too long. */
    SCHEDULE_TO_CLOSE(4, true),
    /** Backoff over: dispatch the next attempt. */
    RETRY(5, false),
    /** A resolved site's dedupe window is over: delete it. */
    EXPIRE(6, false);

    private final byte code;
    private final boolean waitsForReports;

    DeadlineKind(int code, boolean waitsForReports) {
        this.code = (byte) code;
        this.waitsForReports = waitsForReports;
    }

    /**
     * Whether passing this deadline means "no worker report came in time", which only the
     * worker-events input can tell: it fires once the task has read every report written before it.
     */
    public boolean waitsForReports() {
        return waitsForReports;
    }

    public byte code() {
        return code;
    }

    public static DeadlineKind ofCode(byte code) {
        for (DeadlineKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        throw new IllegalArgumentException("no deadline kind has code " + code);
    }
}
