package dev.baton.cli;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.baton.dispatcher.DispatchClientConfig;
import dev.baton.streams.config.StreamsAppConfig;
import dev.baton.worker.WorkerConfig;
import org.apache.kafka.common.config.ConfigDef;
import picocli.CommandLine.Command;

/** {@code baton config docs}: every configuration key of every process, from the config definitions themselves. */
@Command(name = "config", mixinStandardHelpOptions = true, description = "Configuration reference.",
        subcommands = {ConfigCommand.Docs.class})
public final class ConfigCommand {

    @Command(name = "docs", mixinStandardHelpOptions = true, description = "Print every key of every process: type, default, description.")
    static final class Docs implements Callable<Integer> {

        private final PrintStream out = System.out;

        @Override
        public Integer call() {
            Map<String, ConfigDef> processes = new LinkedHashMap<>();
            processes.put("streams-app (baton streams-app --config FILE; per-queue timeouts: queue.<name>.{schedule.to.start,start.to.close,schedule.to.close,heartbeat}.ms)",
                    StreamsAppConfig.CONFIG);
            processes.put("worker (baton worker --config FILE)", WorkerConfig.CONFIG);
            processes.put("dispatcher (DispatchClient.create(configs, ...); baton dispatch --config FILE)", DispatchClientConfig.CONFIG);
            processes.forEach((name, def) -> {
                out.println("## " + name);
                out.println();
                def.configKeys().values().stream().sorted((a, b) -> a.name.compareTo(b.name)).forEach(k -> {
                    Object dflt = k.hasDefault() ? ConfigDef.convertToString(k.defaultValue, k.type) : "(required)";
                    out.printf("%-32s %-8s default %-24s %s%n", k.name, k.type.toString().toLowerCase(), dflt, k.documentation);
                });
                out.println();
            });
            out.println(ProcessKeys.REGISTRY_BASIC_AUTH + " (every process): user:password for an http(s):// schema.registry.url "
                    + "(logged as [hidden]).");
            out.println("Every other key passes through to the Kafka clients (security, timeouts) or to Kafka Streams; a key no process "
                    + "knows is warned about at start, naming the closest known key.");
            out.println();
            out.println("## Environment overrides");
            out.println();
            out.println("A variable BATON_<NAME> sets the key <name> lower-cased with '_' read as '.' and '__' as '_', over --config and under "
                    + "the command's own options: BATON_WORKER_QUEUES=a,b sets worker.queues, BATON_SCHEMA_REGISTRY_URL sets "
                    + "schema.registry.url, BATON_STATUS_ADVERTISED_HOST sets status.advertised.host.");
            out.println("Not keys (read by the launcher, the image or the tests): " + String.join(", ", new java.util.TreeSet<>(dev.baton.cli.options.EnvironmentOverrides.LAUNCHER_VARIABLES)) + ".");
            return 0;
        }
    }
}
