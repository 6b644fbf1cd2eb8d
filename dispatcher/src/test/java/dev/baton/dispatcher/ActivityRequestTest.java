package dev.baton.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.baton.dispatcher.ActivityRequest.RetryOptions;
import dev.baton.dispatcher.ActivityRequest.TimeoutOptions;
import dev.baton.schemas.SiteKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Every constraint {@link ActivityRequest} checks, and the message that names it and the value it got. */
class ActivityRequestTest {

    private static ActivityRequest.Builder valid() {
        return ActivityRequest.builder().site("payments", "order-42", "3").queue("payments").activityType("charge");
    }

    @Test
    void shouldDefaultToTheFirstAttemptWithNoRunIdInputNodeRetryOrTimeouts() {
        ActivityRequest request = valid().build();

        assertThat(request.site()).isEqualTo(new SiteKey("payments", "order-42", "3"));
        assertThat(request.attempt()).isEqualTo(1);
        assertThat(request.runId()).isEmpty();
        assertThat(request.input()).isEmpty();
        assertThat(request.contentType()).isEqualTo("application/octet-stream");
        assertThat(request.node()).isNull();
        assertThat(request.retry()).isNull();
        assertThat(request.timeouts()).isEqualTo(TimeoutOptions.NONE);
    }

    @Test
    void shouldKeepTheInputAndItsContentType() {
        ActivityRequest request = valid().input("{\"amount\":12}".getBytes(StandardCharsets.UTF_8), "application/json").build();

        assertThat(new String(request.input(), StandardCharsets.UTF_8)).isEqualTo("{\"amount\":12}");
        assertThat(request.contentType()).isEqualTo("application/json");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void shouldRejectAttemptBelowOne(int attempt) {
        assertThatThrownBy(() -> valid().attempt(attempt).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("attempt must be >= 1, was " + attempt);
    }

    @Test
    void shouldRejectAttemptBelowOneWhenRetargetingWithAttempt() {
        ActivityRequest request = valid().build();

        assertThatThrownBy(() -> request.withAttempt(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("attempt must be >= 1, was 0");
    }

    @Test
    void shouldChangeOnlyTheAttemptWithAttempt() {
        ActivityRequest first = valid().runId("run-1").node("eu-1").input(new byte[] {1, 2}, "application/x-test")
                .retry(RetryOptions.of(Duration.ofSeconds(1), 3)).heartbeat(Duration.ofSeconds(5)).build();

        ActivityRequest third = first.withAttempt(3);

        assertThat(third.attempt()).isEqualTo(3);
        assertThat(third).usingRecursiveComparison().ignoringFields("attempt").isEqualTo(first);
    }

    @Test
    void shouldRejectAMissingSite() {
        assertThatThrownBy(() -> valid().site((SiteKey) null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("site must be set, was null");
    }

    @ParameterizedTest
    @CsvSource({"'', wf, 1, namespace", "ns, '', 1, workflowId", "ns, wf, '', activityId"})
    void shouldRejectAnEmptySiteId(String namespace, String workflowId, String activityId, String part) {
        assertThatThrownBy(() -> valid().site(namespace, workflowId, activityId))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(part + " must be a non-empty string, was ''");
    }

    @Test
    void shouldRejectANullRunId() {
        assertThatThrownBy(() -> valid().runId(null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("runId must be non-null ('' for none), was null");
    }

    @ParameterizedTest
    @ValueSource(strings = {"pay.ments", "pay/ments", "pay ments", "paymënts", "pay:ments", ""})
    void shouldRejectAQueueNameWithCharactersOutsideTheAllowedSet(String queue) {
        assertThatThrownBy(() -> valid().queue(queue).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("queue must match [A-Za-z0-9_-]{1,100}, was '" + queue + "'");
    }

    @Test
    void shouldRejectAMissingQueue() {
        assertThatThrownBy(() -> valid().queue(null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("queue must match [A-Za-z0-9_-]{1,100}, was 'null'");
    }

    @Test
    void shouldRejectAQueueNameLongerThan100Characters() {
        String queue = "q".repeat(101);

        assertThatThrownBy(() -> valid().queue(queue).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("queue must match [A-Za-z0-9_-]{1,100}, was '" + queue + "'");
    }

    @Test
    void shouldAcceptAQueueNameOfLettersDigitsUnderscoresAndDashesUpTo100Characters() {
        String longest = "Q_-9".repeat(25);

        assertThat(valid().queue(longest).build().queue()).isEqualTo(longest);
    }

    @ParameterizedTest
    @ValueSource(strings = {"charge card", "charge/card", "charge:card", ""})
    void shouldRejectAnActivityTypeWithCharactersOutsideTheAllowedSet(String activityType) {
        assertThatThrownBy(() -> valid().activityType(activityType).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("activityType must match [A-Za-z0-9_.$-]{1,200}, was '" + activityType + "'");
    }

    @Test
    void shouldRejectAMissingActivityType() {
        assertThatThrownBy(() -> valid().activityType(null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("activityType must match [A-Za-z0-9_.$-]{1,200}, was 'null'");
    }

    @Test
    void shouldRejectAnActivityTypeLongerThan200Characters() {
        String activityType = "a".repeat(201);

        assertThatThrownBy(() -> valid().activityType(activityType).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("activityType must match [A-Za-z0-9_.$-]{1,200}, was '" + activityType + "'");
    }

    @Test
    void shouldAcceptAJavaStyleActivityTypeOf200Characters() {
        String activityType = "com.acme.Charge$Inner-v2_1".repeat(8).substring(0, 200);

        assertThat(valid().activityType(activityType).build().activityType()).isEqualTo(activityType);
    }

    @ParameterizedTest
    @ValueSource(strings = {"eu.1", "eu 1", ""})
    void shouldRejectANodeWithCharactersOutsideTheAllowedSet(String node) {
        assertThatThrownBy(() -> valid().node(node).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("node must match [A-Za-z0-9_-]{1,100}, was '" + node + "'");
    }

    @Test
    void shouldPinToAValidNode() {
        assertThat(valid().node("eu-1").build().node()).isEqualTo("eu-1");
    }

    @Test
    void shouldCarryTheTimeoutsThatAreSetAndLeaveTheOthersOff() {
        ActivityRequest request = valid().scheduleToStart(Duration.ofSeconds(1)).heartbeat(Duration.ofMillis(1500)).build();

        assertThat(request.timeouts()).isEqualTo(new TimeoutOptions(Duration.ofSeconds(1), null, null, Duration.ofMillis(1500)));
    }

    @ParameterizedTest
    @CsvSource({"scheduleToStart, PT0S", "startToClose, PT-1S", "scheduleToClose, PT0S", "heartbeat, PT-0.001S"})
    void shouldRejectATimeoutThatIsNotPositiveNamingWhichOne(String timeout, String value) {
        Duration d = Duration.parse(value);
        ActivityRequest.Builder builder = switch (timeout) {
            case "scheduleToStart" -> valid().scheduleToStart(d);
            case "startToClose" -> valid().startToClose(d);
            case "scheduleToClose" -> valid().scheduleToClose(d);
            default -> valid().heartbeat(d);
        };

        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(timeout + " must be a positive duration, was " + d);
    }

    @Test
    void shouldDefaultRetryOptionsToDoublingCappedAtAHundredTimesTheInitialInterval() {
        RetryOptions retry = RetryOptions.of(Duration.ofMillis(250), 5);

        assertThat(retry).isEqualTo(new RetryOptions(Duration.ofMillis(250), 2.0, Duration.ofMillis(25_000), 5, List.of()));
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.99, 0.0, -2.0, Double.NaN})
    void shouldRejectARetryCoefficientBelowOne(double coefficient) {
        assertThatThrownBy(() -> new RetryOptions(Duration.ofSeconds(1), coefficient, Duration.ofSeconds(10), 3, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retry coefficient must be >= 1.0, was " + coefficient);
    }

    @Test
    void shouldRejectNegativeMaxAttempts() {
        assertThatThrownBy(() -> RetryOptions.of(Duration.ofSeconds(1), -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxAttempts must be >= 0 (0 = unlimited), was -1");
    }

    @Test
    void shouldAcceptZeroMaxAttemptsAsUnlimited() {
        assertThat(RetryOptions.of(Duration.ofSeconds(1), 0).maxAttempts()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"PT0S", "PT-1S"})
    void shouldRejectAnInitialIntervalThatIsNotPositive(String value) {
        Duration d = Duration.parse(value);

        assertThatThrownBy(() -> new RetryOptions(d, 2.0, Duration.ofSeconds(10), 3, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("initialInterval must be a positive duration, was " + d);
    }

    @Test
    void shouldRejectAMissingMaxInterval() {
        assertThatThrownBy(() -> new RetryOptions(Duration.ofSeconds(1), 2.0, null, 3, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxInterval must be a positive duration, was null");
    }

    @Test
    void shouldKeepItsOwnCopyOfTheNonRetryablePrefixes() {
        List<String> prefixes = new ArrayList<>(List.of("terminal:"));
        RetryOptions retry = new RetryOptions(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10), 3, prefixes);

        prefixes.add("cancelled:");

        assertThat(retry.nonRetryableReasonPrefixes()).containsExactly("terminal:");
        assertThatThrownBy(() -> retry.nonRetryableReasonPrefixes().add("lost:")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void shouldDeriveTheIdempotencyKeyFromTheSiteAndRunId() {
        ActivityRequest request = valid().runId("run-1").build();

        assertThat(request.idempotencyKey())
                .isEqualTo(UUID.nameUUIDFromBytes("payments/order-42/3#run-1".getBytes(StandardCharsets.UTF_8)).toString());
    }

    @Test
    void shouldDeriveTheSameIdempotencyKeyAsNameUuidFromBytesForAnySiteAndRunId() {
        java.util.Random random = new java.util.Random(29);
        for (int i = 0; i < 2_000; i++) {
            String workflow = "wf-" + Long.toString(random.nextLong(), 36) + (i % 7 == 0 ? "/é%" : "");
            String runId = "run-" + random.nextInt(1_000_000);
            ActivityRequest request = valid().site("ns", workflow, Integer.toString(i)).runId(runId).build();

            assertThat(request.idempotencyKey()).isEqualTo(
                    UUID.nameUUIDFromBytes((request.site().asKey() + "#" + runId).getBytes(StandardCharsets.UTF_8)).toString());
        }
    }

    @Test
    void shouldKeepTheIdempotencyKeyAcrossAttempts() {
        ActivityRequest first = valid().runId("run-1").build();

        assertThat(first.withAttempt(7).idempotencyKey()).isEqualTo(first.idempotencyKey());
    }

    @Test
    void shouldGiveAnotherRunOfTheSameSiteAnotherIdempotencyKey() {
        assertThat(valid().runId("run-2").build().idempotencyKey()).isNotEqualTo(valid().runId("run-1").build().idempotencyKey());
    }

    @Test
    void shouldGiveAnotherSiteAnotherIdempotencyKey() {
        ActivityRequest here = valid().runId("run-1").build();
        ActivityRequest there = valid().site("payments", "order-42", "4").runId("run-1").build();

        assertThat(there.idempotencyKey()).isNotEqualTo(here.idempotencyKey());
    }

    @Test
    void shouldRejectATimeoutLongerThanTenYears() {
        assertThatThrownBy(() -> ActivityRequest.builder().site("ns", "wf", "1").queue("q").activityType("t")
                .scheduleToStart(Duration.ofMillis(Long.MAX_VALUE)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("scheduleToStart must be at most PT87600H (10 years), was PT");
    }
}
