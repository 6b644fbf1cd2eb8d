package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The bench subcommand is optional, so the production image (no bench module) still starts. */
class BatonCommandTest {

    @Test
    void shouldOfferBenchWhenTheBenchModuleIsOnTheClassPath() {
        assertThat(CliRun.of("--help").output()).contains("bench");
    }

    @Test
    void shouldReadBenchEnumValuesInAnyCaseLikeEveryOtherCommand() {
        // bench is added after the annotated subcommands; picocli settings reach only those present when set.
        CliRun run = CliRun.of("bench", "dispatch", "--guarantees", "nonsense");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(CliRun.of("bench", "dispatch", "--guarantees", "AT_LEAST_ONCE", "--help").exit()).isZero();
    }

    @Test
    void shouldRefuseABenchGuaranteeSetThroughStreamsConfig() {
        // A usage error before any broker starts: each run's guarantee is --guarantees' to set.
        assertThat(CliRun.of("bench", "dispatch", "--streams-config", "processing.guarantee=at_least_once").exit()).isEqualTo(2);
        assertThat(CliRun.of("bench", "dispatch", "--guarantees", "at_most_once", "--help").exit()).isEqualTo(2);
    }

    @Test
    void shouldBuildOnlyTheSubcommandItRunsButEveryOneForHelp() {
        assertThat(BatonCommand.commandLine("replay").getSubcommands()).containsOnlyKeys("replay");
        assertThat(BatonCommand.commandLine("--help").getSubcommands()).containsKeys("replay", "worker", "help", "bench");
        assertThat(CliRun.of("replay", "--help").output()).contains("--timings");
    }

    @Test
    void shouldStartWithoutASubcommandWhoseClassIsMissing() {
        CommandLine cli = BatonCommand.commandLine(null);

        assertThat(BatonCommand.addIfPresent(cli, "absent", "dev.baton.nowhere.AbsentCommand")).isFalse();
        assertThat(cli.getSubcommands()).doesNotContainKey("absent").containsKey("worker");
    }
}
