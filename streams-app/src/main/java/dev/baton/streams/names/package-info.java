/**
 * The names that tie the streams app together: its topology's sources, sinks, processors and stores, and
 * the headers its records carry. A package of its own, below everything that uses them, because the
 * topology wires the processors by these names and the processors, stores and status queries address
 * the same nodes: kept in {@code topology}, they made a cycle that javac hides by copying the constants.
 */
package dev.baton.streams.names;
