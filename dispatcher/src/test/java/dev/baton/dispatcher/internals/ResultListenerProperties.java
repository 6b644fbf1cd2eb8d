package dev.baton.dispatcher.internals;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.NotEmpty;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;

class ResultListenerProperties {

    /**
     * The streams app writes results keyed by the client id with the default partitioner; a client that
     * read any other partition would never see its outcomes.
     */
    @Property(tries = 2000)
    void shouldReadThePartitionTheDefaultPartitionerWritesTheClientIdTo(@ForAll @NotEmpty String clientId,
                                                                       @ForAll @IntRange(min = 1, max = 1000) int partitions) {
        assertThat(ResultListener.partitionFor(clientId, partitions))
                .isEqualTo(BuiltInPartitioner.partitionForKey(clientId.getBytes(StandardCharsets.UTF_8), partitions));
    }
}
