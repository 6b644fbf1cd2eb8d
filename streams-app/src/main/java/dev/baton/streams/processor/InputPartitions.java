package dev.baton.streams.processor;

import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.baton.topics.BatonTopics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many partitions {@code baton.dispatch} (and so the co-partitioned {@code baton.worker-events})
 * has: the modulus of the rule that puts a site's records on one partition, murmur2 of the key
 * bytes, as Kafka's default partitioner does. A record written by a client with another partitioner
 * lands on a task that does not own its site, so each task checks the rule on what it reads.
 */
@FunctionalInterface
public interface InputPartitions {

    /** The partition count, or 0 when unknown (then nothing is checked). */
    int count();

    /** The partition {@code key} belongs on, or -1 when the count is unknown. */
    default int partitionOf(byte[] key) {
        int n = count();
        return n <= 0 ? -1 : Utils.toPositive(Utils.murmur2(key)) % n;
    }

    static InputPartitions fixed(int count) {
        return () -> count;
    }

    /** Asks the cluster once, the first time it is needed; if it cannot tell, checks nothing and says so. */
    static InputPartitions of(Admin admin) {
        return new InputPartitions() {
            private final Logger log = LoggerFactory.getLogger(InputPartitions.class);
            private volatile int count = -1;

            @Override
            public int count() {
                int n = count;
                if (n < 0) {
                    n = describe();
                    count = n;
                }
                return n;
            }

            private int describe() {
                try {
                    return admin.describeTopics(List.of(BatonTopics.DISPATCH)).allTopicNames().get(10, TimeUnit.SECONDS)
                            .get(BatonTopics.DISPATCH).partitions().size();
                } catch (Exception e) {
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                    }
                    log.warn("cannot tell how many partitions {} has ({}); records on the wrong partition are not detected",
                            BatonTopics.DISPATCH, e.toString());
                    return 0;
                }
            }
        };
    }
}
