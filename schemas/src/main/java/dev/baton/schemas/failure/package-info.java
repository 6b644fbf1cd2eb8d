/**
 * Structured activity failures: {@link dev.baton.schemas.failure.ActivityFailure} (type, message, details
 * payload, stack, cause chain) as workers report it and callers receive it. The reason string with its
 * vocabulary prefix ({@link dev.baton.schemas.Reasons}) stays the contract that decides retries; a
 * failure says what happened, for people and for typed callers.
 */
package dev.baton.schemas.failure;
