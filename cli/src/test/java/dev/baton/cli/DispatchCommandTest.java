package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code baton dispatch --count}: the example dispatcher of compose/ sends a series of new sites, never duplicates. */
class DispatchCommandTest {

    @Test
    void shouldKeepTheWorkflowIdOfASingleDispatch() {
        assertThat(parse("--workflow", "order-42").workflowId("order-42", 1)).isEqualTo("order-42");
    }

    @Test
    void shouldNumberTheWorkflowsOfASeries() {
        DispatchCommand series = parse("--workflow", "example", "--count", "0");
        assertThat(series.workflowId("example", 1)).isEqualTo("example-1");
        assertThat(series.workflowId("example", 2)).isEqualTo("example-2");
    }

    private static DispatchCommand parse(String... extra) {
        DispatchCommand command = new DispatchCommand();
        String[] args = new String[extra.length + 4];
        args[0] = "--queue";
        args[1] = "default";
        args[2] = "--type";
        args[3] = "echo";
        System.arraycopy(extra, 0, args, 4, extra.length);
        new CommandLine(command).parseArgs(args);
        return command;
    }
}
