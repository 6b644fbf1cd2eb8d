package dev.baton.bench;

import dev.baton.bench.replay.ReplayBench;
import picocli.CommandLine.Command;

/** {@code baton bench ...}: benchmarks that print Baton's figures beside a peer's from the same run. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Benchmarks against peers, in one process.",
        subcommands = {MorselBench.class, DispatchBench.class, ReplayBench.class})
public final class BenchCommand {
}
