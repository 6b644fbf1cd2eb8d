package dev.baton.streams.state;

/** What a deadline in the {@code deadlines} index means when it passes. The code is its key byte. */
public enum DeadlineKind {
    /** A lease went silent: transport loss. */
    HEARTBEAT(1),
    /** The attempt ran too long. */
    START_TO_CLOSE(2),
    /** No worker took the task in time. */
    SCHEDULE_TO_START(3),
    /** The whole activity, all attempts, took too long. */
    SCHEDULE_TO_CLOSE(4),
    /** Backoff over: dispatch the next attempt. */
    RETRY(5),
    /** A resolved site's dedupe window is over: delete it. */
    EXPIRE(6);

    private final byte code;

    DeadlineKind(int code) {
        this.code = (byte) code;
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
