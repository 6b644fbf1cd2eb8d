package dev.baton.testkit.soak;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.common.GroupState;

/** Watches a consumer group from the admin API: how long until it is stable with a given number of members, each assigned. */
public final class GroupWatch {

    private static final long POLL_MILLIS = 50;

    private final Admin admin;
    private final String group;

    public GroupWatch(Admin admin, String group) {
        this.admin = admin;
        this.group = group;
    }

    /**
     * Waits until the group is {@code STABLE} with {@code members} members, every one holding at least one
     * partition when there are enough to go round ({@code partitions}); returns how long that took
     * from {@code sinceNanos} (a {@link System#nanoTime()}), or null if not within {@code timeout}.
     */
    public Duration awaitStable(int members, int partitions, long sinceNanos, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
                if (d.groupState() == GroupState.STABLE && d.members().size() == members && assigned(d, members, partitions)) {
                    return Duration.ofNanos(System.nanoTime() - sinceNanos);
                }
            } catch (java.util.concurrent.ExecutionException e) {
                // the coordinator moving or loading: ask again
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS); // polling the admin API; there is no push for group state
        }
        return null;
    }

    private static boolean assigned(ConsumerGroupDescription d, int members, int partitions) {
        if (members > partitions) {
            return true; // some members idle by design
        }
        return d.members().stream().allMatch(m -> !m.assignment().topicPartitions().isEmpty());
    }
}
