package dev.baton.streams.processor;

import java.util.Optional;

import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Payload;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.CompletionToken;
import dev.baton.topics.BatonTopics;

/**
 * Checks decoded inputs for values no rule should see (negative attempts, empty ids, oversized
 * payloads, malformed tokens). A record that fails is dead-lettered with the returned reason and
 * never touches a site: a malformed completion cannot consume the current generation.
 */
final class InputValidator {

    private final int maxPayloadBytes;

    InputValidator(int maxPayloadBytes) {
        this.maxPayloadBytes = maxPayloadBytes;
    }

    Optional<String> problemWith(DispatchCommand cmd) {
        if (cmd.getKind() == null || cmd.getKind() == DispatchKind.UNKNOWN) {
            return Optional.of("dispatch kind is unknown to this version");
        }
        if (cmd.getRequestId().isEmpty()) {
            return Optional.of("requestId must not be empty");
        }
        if (cmd.getKind() == DispatchKind.CANCEL) {
            return Optional.empty();
        }
        if (cmd.getAttempt() < 1) {
            return Optional.of("attempt must be >= 1, was " + cmd.getAttempt());
        }
        if (!BatonTopics.isValidQueueName(cmd.getQueue())) {
            return Optional.of("queue must be a valid queue name, was '" + cmd.getQueue() + "'");
        }
        if (cmd.getNode() != null && !BatonTopics.isValidQueueName(cmd.getNode())) {
            return Optional.of("node must be a valid node label, was '" + cmd.getNode() + "'");
        }
        if (cmd.getActivityType().isEmpty()) {
            return Optional.of("activityType must not be empty");
        }
        return payloadProblem("input", cmd.getInput());
    }

    Optional<String> problemWith(WorkerEvent event) {
        if (event.getKind() == null || event.getKind() == WorkerEventKind.UNKNOWN) {
            return Optional.of("worker event kind is unknown to this version");
        }
        if (event.getAttempt() < 1 || event.getGeneration() < 1) {
            return Optional.of("attempt and generation must be >= 1, were " + event.getAttempt() + " and " + event.getGeneration());
        }
        if (event.getToken().length() != CompletionToken.LENGTH) {
            return Optional.of("token must have " + CompletionToken.LENGTH + " characters, had " + event.getToken().length());
        }
        if (event.getWorkerId().isEmpty()) {
            return Optional.of("workerId must not be empty");
        }
        return payloadProblem("output", event.getOutput());
    }

    private Optional<String> payloadProblem(String what, Payload payload) {
        if (payload != null && payload.getData().remaining() > maxPayloadBytes) {
            return Optional.of(what + " must be <= max.payload.bytes " + maxPayloadBytes + ", was " + payload.getData().remaining());
        }
        return Optional.empty();
    }
}
