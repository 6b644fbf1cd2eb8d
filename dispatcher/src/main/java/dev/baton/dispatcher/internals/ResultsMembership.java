package dev.baton.dispatcher.internals;

import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.errors.UnreleasedInstanceIdException;

/**
 * How a client holds its {@code baton.client.id} while it runs: its results consumer is the one static member of group
 * {@code baton-dispatcher-<id>} under the consumer group protocol (KIP-848), with a fixed {@code group.instance.id}
 * (the group already names the id). The group coordinator refuses a second member with that instance id while the
 * first one has not left ({@code UNRELEASED_INSTANCE_ID}); a member closed leaves at once, one killed is removed when
 * its session lapses ({@code group.consumer.session.timeout.ms}). A non-member's offset commit to a group with a member
 * is refused too, so no one else moves the results position of a live client. Why this fence and not another:
 * docs/decisions.md, "One live client per baton.client.id".
 */
final class ResultsMembership {

    /** The instance id of every client's results consumer; unique within its group, which is the client id's own. */
    static final String INSTANCE_ID = "dispatch-client";

    private ResultsMembership() {
    }

    /**
     * {@code groupConsumer} as a static member under the consumer protocol. The classic protocol's member settings are
     * dropped: the consumer protocol refuses them (its session and heartbeat are the broker's), and a setting meant for
     * the other consumers of a process should not stop its dispatch client from starting.
     */
    static Map<String, Object> memberConfig(Map<String, Object> groupConsumer) {
        groupConsumer.remove(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
        groupConsumer.remove(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);
        groupConsumer.remove(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG);
        groupConsumer.remove(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG);
        groupConsumer.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        groupConsumer.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, INSTANCE_ID);
        return groupConsumer;
    }

    /** Whether {@code e} is the coordinator's refusal of a member whose instance id a live member holds. */
    static boolean refused(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnreleasedInstanceIdException) {
                return true;
            }
        }
        return false;
    }
}
