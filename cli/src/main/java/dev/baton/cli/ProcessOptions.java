package dev.baton.cli;

import dev.baton.cli.options.ClientOptions;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Options of every long-running process command. */
public final class ProcessOptions {

    @Mixin
    ClientOptions client;

    @Option(names = "--metrics-port", defaultValue = "0", description = "The process's HTTP port: /metrics (Prometheus), /health, /ready; the streams app's query API too (0 = off)")
    int metricsPort;
}
