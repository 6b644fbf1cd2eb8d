package dev.baton.dispatcher.internals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.events.SiteRef;

/** {@code baton.results} values as the streams app writes them, for tests of the reading side. */
public final class OutcomeEvents {

    public static final SiteRef SITE = new SiteRef("payments", "order-42", "3");

    private OutcomeEvents() {
    }

    /** A completion of attempt 1 with output {@code "ok"} ({@code text/plain}) by worker {@code w-1}. */
    public static Outcome.Builder completed(String requestId, String replyKey) {
        return Outcome.newBuilder().setStatus(OutcomeStatus.COMPLETED).setSite(SITE).setRequestId(requestId).setReplyKey(replyKey)
                .setAttempt(1).setOutput(new Payload(ByteBuffer.wrap("ok".getBytes(StandardCharsets.UTF_8)), "text/plain"))
                .setWorkerId("w-1").setAtMillis(7L);
    }

    /** A failure of attempt 1 with {@code reason}, without output. */
    public static Outcome.Builder failed(String requestId, String replyKey, String reason) {
        return Outcome.newBuilder().setStatus(OutcomeStatus.FAILED).setSite(SITE).setRequestId(requestId).setReplyKey(replyKey)
                .setAttempt(1).setReason(reason).setWorkerId("w-1").setAtMillis(7L);
    }

    /** A client id other than {@code clientId} whose results share {@code clientId}'s partition. */
    public static String neighbourOf(String clientId, int partitions) {
        int partition = ResultListener.partitionFor(clientId, partitions);
        for (int i = 0; ; i++) {
            String other = "neighbour-" + i;
            if (ResultListener.partitionFor(other, partitions) == partition) {
                return other;
            }
        }
    }
}
