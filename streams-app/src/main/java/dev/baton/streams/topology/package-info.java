/** The topology that wires the processors, stores and topics of the streams app together. */
package dev.baton.streams.topology;
