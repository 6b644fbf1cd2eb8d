package dev.baton.bench;

import java.util.concurrent.CompletableFuture;

/** An echo whose client is a plain producer, its answers counted by {@link EchoAnswers}: the raw echo and the kafka shape. */
abstract class ProducedEcho implements Echo {
    protected final EchoAnswers answers = new EchoAnswers();

    /** Sends the request of activity {@code id}; its answer is given to {@link #answers} when it comes back. */
    protected abstract void produce(long id);

    @Override
    public CompletableFuture<Void> send(long id) {
        CompletableFuture<Void> answer = answers.expect(id);
        produce(id);
        return answer;
    }

    @Override
    public CompletableFuture<Void> sendAll(long firstId, long count) {
        CompletableFuture<Void> answered = answers.expectBurst(firstId, count);
        for (long i = 0; i < count; i++) {
            produce(firstId + i);
        }
        return answered;
    }
}
