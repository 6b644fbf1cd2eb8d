package dev.baton.cli;

import java.util.List;

import dev.baton.cli.ops.CancelCommand;
import dev.baton.cli.ops.DlqCommand;
import dev.baton.cli.ops.SiteCommand;
import dev.baton.cli.ops.SitesCommand;
import dev.baton.cli.ops.StatusCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code baton} command: one entry point for the demo and every Baton process. */
@Command(name = "baton", mixinStandardHelpOptions = true, versionProvider = BuildVersion.class,
        description = "Kafka-native activity dispatch: demo, processes and operator tools.")
public final class BatonCommand implements Runnable {

    /** Every subcommand, in the order usage lists them; {@code bench} is added after them when present. */
    static final List<Class<?>> SUBCOMMANDS = List.of(DemoCommand.class, StreamsAppCommand.class, WorkerCommand.class,
            DispatchCommand.class, TopicsCommand.class, ConfigCommand.class, StatusCommand.class, SiteCommand.class, SitesCommand.class,
            CancelCommand.class, DlqCommand.class, AclCommand.class, SoakCommand.class, ReplayCommand.class, HistoryCommand.class,
            OutboxCommand.class, EngineNodeCommand.class, EngineGroupByCommand.class, CommandLine.HelpCommand.class);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        FormatLocale.preferUsForBareEnglish();
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code; tests call this instead of {@link #main}. */
    public static int run(String... args) {
        CommandLine cli = commandLine(args.length == 0 ? null : args[0]);
        // After every subcommand is added: picocli applies a setting to the subcommands present when it is set.
        return cli.setCaseInsensitiveEnumValuesAllowed(true).execute(args);
    }

    /**
     * The command line with every subcommand, or only {@code first}'s when it names one: picocli
     * reflects over each subcommand's options when it is added, which costs a short-lived command
     * like {@code replay} a good part of its start-up (docs/decisions.md, "A cold replay").
     */
    static CommandLine commandLine(String first) {
        CommandLine cli = new CommandLine(new BatonCommand());
        for (Class<?> c : SUBCOMMANDS) {
            if (first == null || !isSubcommandName(first) || first.equals(c.getAnnotation(Command.class).name())) {
                cli.addSubcommand(c);
            }
        }
        if (first == null || !isSubcommandName(first) || first.equals("bench")) {
            addIfPresent(cli, "bench", "dev.baton.bench.BenchCommand");
        }
        return cli;
    }

    private static boolean isSubcommandName(String word) {
        return word.equals("bench") || SUBCOMMANDS.stream().anyMatch(c -> word.equals(c.getAnnotation(Command.class).name()));
    }

    /**
     * Adds a subcommand whose module may be missing: {@code baton bench} is the bench module's, which the
     * production image leaves out (image/pom.xml) together with DuckDB and the TPC-H generator.
     *
     * @return whether the class was found and added
     */
    static boolean addIfPresent(CommandLine cli, String name, String className) {
        Class<?> type;
        try {
            type = Class.forName(className, false, BatonCommand.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return false;
        }
        cli.addSubcommand(name, type);
        return true;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
