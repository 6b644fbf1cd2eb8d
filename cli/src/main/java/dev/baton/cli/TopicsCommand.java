package dev.baton.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import dev.baton.cli.options.ClientOptions;
import dev.baton.topics.BatonTopics;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import dev.baton.topics.TopicSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code baton topics create|describe}: Baton's topics are declared, never auto-created. */
@Command(name = "topics", description = "Create or describe Baton's topics.", mixinStandardHelpOptions = true,
        subcommands = {TopicsCommand.Create.class, TopicsCommand.Describe.class})
public final class TopicsCommand {

    @Command(name = "create", mixinStandardHelpOptions = true, description = {"Create missing topics; check existing ones.",
        "Tasks pinned to a node go to baton.tasks.<queue>.<node>, which must be declared here: a pin to an undeclared node is "
            + "answered 'unavailable: unknown node' at once. Workers serve a node with `baton worker --node-label <node>`.",
        "Example: baton topics create --queue payments --queue mail --node n1 --node gpu/rack-7"})
    static final class Create implements Callable<Integer> {
        @Mixin
        ClientOptions client;

        @Option(names = "--queue", description = "Declare a queue's task topic (repeatable)")
        List<String> queues = new ArrayList<>();

        @Option(names = "--node", paramLabel = "NODE|QUEUE/NODE", description = "Declare a node's task topic, baton.tasks.<queue>.<node> "
                + "(repeatable): a bare NODE for every --queue given, QUEUE/NODE for that queue only (which is declared too)")
        List<String> nodes = new ArrayList<>();

        @Option(names = "--partitions", defaultValue = "12", description = "Partitions per topic (default ${DEFAULT-VALUE})")
        int partitions;

        @Option(names = "--replication-factor", defaultValue = "-1", description = "Replication factor; -1 takes the cluster's "
                + "default.replication.factor (default ${DEFAULT-VALUE})")
        short replicationFactor;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            List<TopicSpec> specs;
            try {
                specs = BatonTopics.all(new TopicLayout(partitions, replicationFactor, -1), queues, nodesByQueue(queues, nodes));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage(), e);
            }
            try (Admin admin = Admin.create(ClientConfigs.admin(client.clientConfig()))) {
                TopicCreator.Report report = new TopicCreator(admin).create(specs);
                System.out.println(report);
                return report.ok() ? 0 : 2;
            }
        }

        /**
         * The {@code --node} values by queue: {@code queue/node} pins that queue, a bare node every
         * {@code --queue}. Names are checked by {@link BatonTopics#all}.
         *
         * @throws IllegalArgumentException for a bare node with no {@code --queue}, or a malformed {@code queue/node}
         */
        static Map<String, List<String>> nodesByQueue(List<String> queues, List<String> nodes) {
            Map<String, List<String>> out = new LinkedHashMap<>();
            for (String node : nodes) {
                int slash = node.indexOf('/');
                if (slash >= 0) {
                    if (slash == 0 || slash == node.length() - 1 || node.indexOf('/', slash + 1) >= 0) {
                        throw new IllegalArgumentException("--node must be NODE or QUEUE/NODE, was '" + node + "'");
                    }
                    out.computeIfAbsent(node.substring(0, slash), q -> new ArrayList<>()).add(node.substring(slash + 1));
                } else if (queues.isEmpty()) {
                    throw new IllegalArgumentException("--node '" + node + "' names no queue: give --queue Q, or write it as QUEUE/" + node);
                } else {
                    queues.forEach(q -> out.computeIfAbsent(q, k -> new ArrayList<>()).add(node));
                }
            }
            return out;
        }
    }

    @Command(name = "describe", description = "List Baton's topics with partition counts.", mixinStandardHelpOptions = true)
    static final class Describe implements Callable<Integer> {
        @Mixin
        ClientOptions client;

        @Override
        public Integer call() throws Exception {
            try (Admin admin = Admin.create(ClientConfigs.admin(client.clientConfig()))) {
                Set<String> names = admin.listTopics().names().get();
                names.removeIf(n -> !n.startsWith("baton.") && !n.equals(BatonTopics.SCHEMAS));
                Map<String, TopicDescription> sorted = new TreeMap<>(admin.describeTopics(names).allTopicNames().get());
                sorted.forEach((name, d) -> System.out.printf("%-32s %3d partitions%n", name, d.partitions().size()));
                return 0;
            }
        }
    }
}
