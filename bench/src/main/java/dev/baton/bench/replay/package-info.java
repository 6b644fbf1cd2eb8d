/**
 * {@code baton bench replay}: replay's scan and {@code history stats} against a raw consumer that
 * polls and drops, on one synthetic {@code baton.history}, cold (a fresh JVM) and warm.
 */
package dev.baton.bench.replay;
