package dev.baton.cli;

import dev.baton.cli.options.ClientOptions;
import dev.baton.morsel.MorselMetrics;
import dev.baton.morsel.history.HistoryLog;
import dev.baton.morsel.kafka.ScanTimings;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** What the commands that scan Baton's logs share: the cluster, the registry and the engine's threads. */
public final class LogScanOptions {

    @Mixin
    ClientOptions client;

    @Option(names = "--threads", defaultValue = "2", description = "Engine threads scanning the logs (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--schema-registry-url", defaultValue = "kafka://", description = "Schema registry (default ${DEFAULT-VALUE})")
    String schemaRegistryUrl;

    HistoryLog open() {
        return open(ScanTimings.off());
    }

    HistoryLog open(ScanTimings timings) {
        return new HistoryLog(client.clientConfig(), schemaRegistryUrl, threads, MorselMetrics.noop(), timings);
    }
}
