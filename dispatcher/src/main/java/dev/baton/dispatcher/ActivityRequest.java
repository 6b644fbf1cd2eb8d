package dev.baton.dispatcher;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

import dev.baton.schemas.SiteKey;
import dev.baton.schemas.payload.EncodedPayload;
import dev.baton.schemas.payload.PayloadConverters;
import dev.baton.schemas.payload.ReportLimits;
import dev.baton.topics.BatonTopics;

/**
 * A request to run one attempt of an activity at a site. Immutable; built and validated by
 * {@link #builder()}, which fails fast naming the broken constraint and the value.
 *
 * <pre>{@code
 * ActivityRequest req = ActivityRequest.builder()
 *     .site("payments", "order-42", "3").queue("payments").activityType("charge")
 *     .input(new Charge("c-7", 1200))          // JSON by default; or .input(bytes, contentType)
 *     .retry(RetryOptions.of(Duration.ofSeconds(1), 5))
 *     .build();
 * }</pre>
 */
public record ActivityRequest(SiteKey site, int attempt, String runId, String queue, String activityType, byte[] input,
                              String contentType, String node, RetryOptions retry, TimeoutOptions timeouts) {

    /** Compiled once: {@code String.matches} compiles its pattern on every call, and every request is checked. */
    private static final Pattern ACTIVITY_TYPE = Pattern.compile("[A-Za-z0-9_.$-]{1,200}");
    /** {@link #idempotencyKey()}'s digest; {@code digest} resets it, so each thread reuses its own. */
    private static final ThreadLocal<MessageDigest> MD5 = ThreadLocal.withInitial(ActivityRequest::newMd5);

    /** Retry policy: backoff from {@code initialInterval}, times {@code coefficient} per attempt, capped. 0 attempts = unlimited. */
    public record RetryOptions(Duration initialInterval, double coefficient, Duration maxInterval, int maxAttempts,
                               List<String> nonRetryableReasonPrefixes) {
        public RetryOptions {
            requirePositive("initialInterval", initialInterval);
            requirePositive("maxInterval", maxInterval);
            if (!(coefficient >= 1.0)) { // written so that NaN fails too
                throw new IllegalArgumentException("retry coefficient must be >= 1.0, was " + coefficient);
            }
            if (maxAttempts < 0) {
                throw new IllegalArgumentException("maxAttempts must be >= 0 (0 = unlimited), was " + maxAttempts);
            }
            nonRetryableReasonPrefixes = List.copyOf(nonRetryableReasonPrefixes);
            if (nonRetryableReasonPrefixes.size() > MAX_NON_RETRYABLE_PREFIXES) {
                throw new IllegalArgumentException("nonRetryableReasonPrefixes must have <= " + MAX_NON_RETRYABLE_PREFIXES + " entries, had "
                        + nonRetryableReasonPrefixes.size());
            }
            for (String prefix : nonRetryableReasonPrefixes) {
                requireId("a nonRetryableReasonPrefixes entry", prefix);
            }
        }

        public static RetryOptions of(Duration initialInterval, int maxAttempts) {
            return new RetryOptions(initialInterval, 2.0, initialInterval.multipliedBy(100), maxAttempts, List.of());
        }
    }

    /** Timeouts; {@code null} means off. None is on unless set. */
    public record TimeoutOptions(Duration scheduleToStart, Duration startToClose, Duration scheduleToClose, Duration heartbeat) {
        public TimeoutOptions {
            requirePositiveIfSet("scheduleToStart", scheduleToStart);
            requirePositiveIfSet("startToClose", startToClose);
            requirePositiveIfSet("scheduleToClose", scheduleToClose);
            requirePositiveIfSet("heartbeat", heartbeat);
        }

        public static final TimeoutOptions NONE = new TimeoutOptions(null, null, null, null);
    }

    public ActivityRequest {
        if (site == null) {
            throw new IllegalArgumentException("site must be set, was null");
        }
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be >= 1, was " + attempt);
        }
        if (runId == null) {
            throw new IllegalArgumentException("runId must be non-null ('' for none), was null");
        }
        // The streams app refuses longer ids (they are kept in the site's row and copied into every answer): refused here first.
        requireId("site's namespace", site.namespace());
        requireId("site's workflowId", site.workflowId());
        requireId("site's activityId", site.activityId());
        requireId("runId", runId);
        if (!BatonTopics.isValidQueueName(queue)) {
            throw new IllegalArgumentException("queue must match [A-Za-z0-9_-]{1,100}, was '" + queue + "'");
        }
        if (activityType == null || !ACTIVITY_TYPE.matcher(activityType).matches()) {
            throw new IllegalArgumentException("activityType must match [A-Za-z0-9_.$-]{1,200}, was '" + activityType + "'");
        }
        if (node != null && !BatonTopics.isValidQueueName(node)) {
            throw new IllegalArgumentException("node must match [A-Za-z0-9_-]{1,100}, was '" + node + "'");
        }
        input = input == null ? new byte[0] : input;
        contentType = contentType == null ? "application/octet-stream" : contentType;
        requireId("contentType", contentType);
        timeouts = timeouts == null ? TimeoutOptions.NONE : timeouts;
    }

    /** A retry policy's non-retryable reason prefixes the streams app accepts. */
    public static final int MAX_NON_RETRYABLE_PREFIXES = 64;

    private static void requireId(String what, String value) {
        if (value.length() > ReportLimits.MAX_ID_CHARS) {
            throw new IllegalArgumentException(what + " must have <= " + ReportLimits.MAX_ID_CHARS + " characters, had " + value.length());
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Stable per (site, runId): identical across attempts and generations, so side effects can be deduplicated.
     * It is {@code UUID.nameUUIDFromBytes} of {@code key#runId} ({@link #idempotencyName}: a version 3 UUID), computed with this thread's
     * MD5 digest: {@code nameUUIDFromBytes} looks the algorithm up and makes a digest on every call
     * (docs/decisions.md, "CPU per activity at saturation").
     */
    public String idempotencyKey() {
        byte[] md5 = MD5.get().digest((idempotencyName(site.asKey(), runId)).getBytes(StandardCharsets.UTF_8));
        md5[6] = (byte) ((md5[6] & 0x0f) | 0x30); // version 3: name-based, MD5
        md5[8] = (byte) ((md5[8] & 0x3f) | 0x80); // the IETF variant
        return new UUID(bigEndianLong(md5, 0), bigEndianLong(md5, 8)).toString();
    }

    /**
     * {@code key#runId}, with every {@code #} of either part written {@code %23} (and a run id's {@code %} as {@code %25}; the
     * key's are escaped already), so the one {@code #} left splits them: unescaped, site {@code .../charge#1} with run
     * {@code ""} and site {@code .../charge} with run {@code "1#"} shared a key (h/adv21). A key and run id without
     * {@code #} (and a run id without {@code %}) read as before: the keys of runs already dispatched do not change.
     */
    static String idempotencyName(String key, String runId) {
        String k = key.indexOf('#') < 0 ? key : key.replace("#", "%23");
        String r = runId.indexOf('#') < 0 && runId.indexOf('%') < 0 ? runId : runId.replace("%", "%25").replace("#", "%23");
        return k + "#" + r;
    }

    private static long bigEndianLong(byte[] b, int from) {
        long v = 0;
        for (int i = from; i < from + Long.BYTES; i++) {
            v = (v << 8) | (b[i] & 0xff);
        }
        return v;
    }

    private static MessageDigest newMd5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has MD5 (UUID.nameUUIDFromBytes needs it)", e);
        }
    }

    /** This request at another attempt (a caller-driven retry or takeover). */
    public ActivityRequest withAttempt(int newAttempt) {
        return new ActivityRequest(site, newAttempt, runId, queue, activityType, input, contentType, node, retry, timeouts);
    }

    private static void requirePositiveIfSet(String name, Duration d) {
        if (d != null) {
            requirePositive(name, d);
        }
    }

    private static void requirePositive(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, was " + d);
        }
        if (d.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(name + " must be at most " + MAX_DURATION + " (10 years), was " + d);
        }
    }

    /** The longest timeout or retry interval: Baton's deadlines are instants, and one past the year 2^63 ms wraps around. */
    public static final Duration MAX_DURATION = Duration.ofDays(3650);

    /** Builds an {@link ActivityRequest}; {@link #build()} validates. */
    public static final class Builder {
        private SiteKey site;
        private int attempt = 1;
        private String runId = "";
        private String queue;
        private String activityType;
        private byte[] input;
        private String contentType;
        private String node;
        private RetryOptions retry;
        private Duration scheduleToStart;
        private Duration startToClose;
        private Duration scheduleToClose;
        private Duration heartbeat;

        public Builder site(String namespace, String workflowId, String activityId) {
            this.site = new SiteKey(namespace, workflowId, activityId);
            return this;
        }

        public Builder site(SiteKey site) {
            this.site = site;
            return this;
        }

        public Builder attempt(int attempt) {
            this.attempt = attempt;
            return this;
        }

        public Builder runId(String runId) {
            this.runId = runId;
            return this;
        }

        public Builder queue(String queue) {
            this.queue = queue;
            return this;
        }

        public Builder activityType(String activityType) {
            this.activityType = activityType;
            return this;
        }

        public Builder input(byte[] input, String contentType) {
            this.input = input;
            this.contentType = contentType;
            return this;
        }

        /**
         * A typed input, written by the default converters ({@link PayloadConverters#defaults()}): JSON for
         * plain Java types, single-object Avro for Avro records, {@code byte[]} as is; the content type
         * says which, and the worker reads it with the same converter.
         *
         * @throws dev.baton.schemas.payload.PayloadConversionException if the value cannot be written
         */
        public Builder input(Object value) {
            return input(value, PayloadConverters.defaults());
        }

        /** A typed input written by {@code converters}. */
        public Builder input(Object value, PayloadConverters converters) {
            EncodedPayload payload = converters.encode(value);
            return input(payload.data(), payload.contentType());
        }

        public Builder node(String node) {
            this.node = node;
            return this;
        }

        public Builder retry(RetryOptions retry) {
            this.retry = retry;
            return this;
        }

        public Builder scheduleToStart(Duration d) {
            this.scheduleToStart = d;
            return this;
        }

        public Builder startToClose(Duration d) {
            this.startToClose = d;
            return this;
        }

        public Builder scheduleToClose(Duration d) {
            this.scheduleToClose = d;
            return this;
        }

        public Builder heartbeat(Duration d) {
            this.heartbeat = d;
            return this;
        }

        public ActivityRequest build() {
            return new ActivityRequest(site, attempt, runId, queue, activityType, input, contentType, node, retry,
                    new TimeoutOptions(scheduleToStart, startToClose, scheduleToClose, heartbeat));
        }
    }
}
