package dev.baton.streams.processor;

/** Puts the input record being processed on {@code baton.dlq}, with a reason, in the current step. */
@FunctionalInterface
interface InputDeadLetters {

    void deadLetter(String reason);
}
