package dev.baton.schemas.payload;

/**
 * Sizes Baton bounds besides {@code max.payload.bytes} (input and output). Heartbeat details and a
 * failure's details are kept in a site's row next to its input while the run lives, and the row must
 * fit one changelog record: each gets a small fixed share.
 */
public final class PayloadLimits {

    /** The most bytes one heartbeat's details may have. */
    public static final int MAX_HEARTBEAT_DETAILS_BYTES = 64 * 1024;

    /** The most bytes a structured failure's details may have. */
    public static final int MAX_FAILURE_DETAILS_BYTES = 64 * 1024;

    private PayloadLimits() {
    }
}
