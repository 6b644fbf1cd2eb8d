/** The topology that wires the processors, stores and topics of the streams app together, and the names of its nodes. */
package dev.baton.streams.topology;
