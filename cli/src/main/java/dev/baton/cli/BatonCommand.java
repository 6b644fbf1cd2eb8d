package dev.baton.cli;

import dev.baton.bench.BenchCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code baton} command: one entry point for the demo and every Baton process. */
@Command(name = "baton", mixinStandardHelpOptions = true, version = "baton 0.1.0-SNAPSHOT",
        description = "Kafka-native activity dispatch: demo, processes and operator tools.",
        subcommands = {DemoCommand.class, StreamsAppCommand.class, WorkerCommand.class, DispatchCommand.class, TopicsCommand.class,
            BenchCommand.class, ConfigCommand.class, StatusCommand.class, AclCommand.class, SoakCommand.class, ReplayCommand.class, HistoryCommand.class, OutboxCommand.class, EngineNodeCommand.class,
            CommandLine.HelpCommand.class})
public final class BatonCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code; tests call this instead of {@link #main}. */
    public static int run(String... args) {
        return new CommandLine(new BatonCommand()).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
