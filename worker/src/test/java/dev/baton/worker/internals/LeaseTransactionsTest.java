package dev.baton.worker.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** How a queue loop gets back to leasing after a failed lease transaction (the producer is Kafka's MockProducer). */
class LeaseTransactionsTest {

    private static final Map<TopicPartition, OffsetAndMetadata> OFFSETS = Map.of(new TopicPartition("baton.tasks.q", 0), new OffsetAndMetadata(7));
    private static final ConsumerGroupMetadata GROUP = new ConsumerGroupMetadata("baton-worker-q");

    private final Deque<MockProducer<byte[], byte[]>> unused = new ArrayDeque<>();
    private final List<MockProducer<byte[], byte[]>> made = new ArrayList<>();
    private final LeaseTransactions transactions = new LeaseTransactions(this::nextProducer, "worker w queue q");

    private MockProducer<byte[], byte[]> nextProducer() {
        MockProducer<byte[], byte[]> p = unused.isEmpty() ? producer() : unused.removeFirst();
        made.add(p);
        return p;
    }

    private static MockProducer<byte[], byte[]> producer() {
        return new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private MockProducer<byte[], byte[]> queued() {
        MockProducer<byte[], byte[]> p = producer();
        unused.addLast(p);
        return p;
    }

    private void leaseOne() {
        transactions.begin();
        transactions.send(new ProducerRecord<>("baton.worker-events", "site".getBytes(), "leased".getBytes()));
        transactions.commit(OFFSETS, Map.of(), GROUP);
    }

    @Test
    void shouldAbortAndKeepTheProducerAfterAnAbortableFailure() {
        MockProducer<byte[], byte[]> first = queued();
        first.commitTransactionException = new KafkaException("coordinator moved");
        assertThatThrownBy(this::leaseOne).isInstanceOf(KafkaException.class);

        transactions.recover(first.commitTransactionException);
        first.commitTransactionException = null;
        assertThat(first.transactionAborted()).isTrue();
        leaseOne();

        assertThat(made).containsExactly(first);
        assertThat(first.commitCount()).isEqualTo(1);
    }

    /** Kafka refuses to abort a commit that timed out, since it may still complete: only a new producer gets past it. */
    @Test
    void shouldReplaceTheProducerWhenTheFailedTransactionCannotBeAborted() {
        MockProducer<byte[], byte[]> first = queued();
        MockProducer<byte[], byte[]> second = queued();
        first.commitTransactionException = new TimeoutException("commit not acknowledged within max.block.ms");
        first.abortTransactionException = new IllegalStateException("Invalid transition from COMMITTING_TRANSACTION to ABORTING_TRANSACTION");
        assertThatThrownBy(this::leaseOne).isInstanceOf(TimeoutException.class);

        transactions.recover(first.commitTransactionException);
        assertThat(first.closed()).isTrue();
        leaseOne();

        assertThat(made).containsExactly(first, second);
        assertThat(second.transactionInitialized()).isTrue();
        assertThat(second.commitCount()).isEqualTo(1);
        assertThat(second.consumerGroupOffsetsHistory()).containsExactly(Map.of(GROUP.groupId(), OFFSETS));
    }

    @Test
    void shouldTryAgainAtTheNextLeaseWhenTheProducerCannotBeInitialised() {
        MockProducer<byte[], byte[]> first = queued();
        MockProducer<byte[], byte[]> second = queued();
        first.initTransactionException = new TimeoutException("no transaction coordinator");
        assertThatThrownBy(this::leaseOne).isInstanceOf(TimeoutException.class);

        transactions.recover(first.initTransactionException);
        leaseOne();

        assertThat(first.closed()).isTrue();
        assertThat(second.commitCount()).isEqualTo(1);
    }

    @Test
    void shouldStopWhenAnotherProcessTookOverTheTransactionalId() {
        MockProducer<byte[], byte[]> first = queued();
        leaseOne();
        first.fenceProducer();
        ProducerFencedException fenced = catchFencing();

        assertThatThrownBy(() -> transactions.recover(fenced)).isInstanceOf(LeaseTransactions.LeaseFencedException.class)
                .hasMessageContaining("worker w queue q").hasMessageContaining("own worker id");
        assertThat(made).containsExactly(first);
    }

    /** A producer fenced while sending reports it at commit wrapped in a plain KafkaException. */
    @Test
    void shouldSeeFencingBehindAWrappingException() {
        KafkaException wrapped = new KafkaException("Cannot execute transactional method because we are in an error state",
                new ProducerFencedException("epoch bumped by another producer"));

        assertThatThrownBy(() -> transactions.recover(wrapped)).isInstanceOf(LeaseTransactions.LeaseFencedException.class);
    }

    @Test
    void shouldStopWhenTheBrokerRefusesTheTransactionalId() {
        queued().initTransactionException = new TransactionalIdAuthorizationException("not authorized: baton-worker-q-w");
        assertThatThrownBy(this::leaseOne).isInstanceOf(TransactionalIdAuthorizationException.class);

        assertThatThrownBy(() -> transactions.recover(new TransactionalIdAuthorizationException("not authorized: baton-worker-q-w")))
                .isInstanceOf(LeaseTransactions.LeaseFencedException.class).hasMessageContaining("grant it write");
    }

    private ProducerFencedException catchFencing() {
        try {
            leaseOne();
        } catch (ProducerFencedException e) {
            return e;
        }
        throw new AssertionError("a fenced producer leased");
    }
}
