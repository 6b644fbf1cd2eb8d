package dev.baton.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Options of every long-running process command. */
public final class ProcessOptions {

    @Mixin
    ClientOptions client;

    @Option(names = "--metrics-port", defaultValue = "0", description = "Serve Prometheus metrics on this port at /metrics (0 = off)")
    int metricsPort;
}
