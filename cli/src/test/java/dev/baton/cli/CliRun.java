package dev.baton.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the baton command in-process and captures what it prints; for tests. */
public record CliRun(int exit, String output) {

    /** The test logging's line prefix (logback-test.xml writes to System.out, which a run captures from every thread). */
    private static final java.util.regex.Pattern LOG_LINE = java.util.regex.Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*");

    /** What the command printed, without the log lines other threads wrote meanwhile: for parsing its JSON. */
    public String printed() {
        return output.lines().filter(l -> !LOG_LINE.matcher(l).matches()).collect(java.util.stream.Collectors.joining("\n"));
    }

    public static CliRun of(String... args) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            int exit = BatonCommand.run(args);
            return new CliRun(exit, captured.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(original);
        }
    }
}
