package dev.baton.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import dev.baton.topics.BatonTopics;
import dev.baton.topics.TopicCreator;
import dev.baton.topics.TopicLayout;
import dev.baton.topics.TopicSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code baton topics create|describe}: Baton's topics are declared, never auto-created. */
@Command(name = "topics", description = "Create or describe Baton's topics.", mixinStandardHelpOptions = true,
        subcommands = {TopicsCommand.Create.class, TopicsCommand.Describe.class})
public final class TopicsCommand {

    @Command(name = "create", description = "Create missing topics; check existing ones.", mixinStandardHelpOptions = true)
    static final class Create implements Callable<Integer> {
        @Mixin
        ClientOptions client;

        @Option(names = "--queue", description = "Declare a queue's task topic (repeatable)")
        List<String> queues = new ArrayList<>();

        @Option(names = "--partitions", defaultValue = "12", description = "Partitions per topic (default ${DEFAULT-VALUE})")
        int partitions;

        @Option(names = "--replication-factor", defaultValue = "1", description = "Replication factor (default ${DEFAULT-VALUE})")
        short replicationFactor;

        @Override
        public Integer call() {
            List<TopicSpec> specs = BatonTopics.all(new TopicLayout(partitions, replicationFactor, -1), queues);
            try (Admin admin = Admin.create(client.clientConfig())) {
                TopicCreator.Report report = new TopicCreator(admin).create(specs);
                System.out.println(report);
                return report.ok() ? 0 : 2;
            }
        }
    }

    @Command(name = "describe", description = "List Baton's topics with partition counts.", mixinStandardHelpOptions = true)
    static final class Describe implements Callable<Integer> {
        @Mixin
        ClientOptions client;

        @Override
        public Integer call() throws Exception {
            try (Admin admin = Admin.create(client.clientConfig())) {
                Set<String> names = admin.listTopics().names().get();
                names.removeIf(n -> !n.startsWith("baton.") && !n.equals(BatonTopics.SCHEMAS));
                Map<String, TopicDescription> sorted = new TreeMap<>(admin.describeTopics(names).allTopicNames().get());
                sorted.forEach((name, d) -> System.out.printf("%-32s %3d partitions%n", name, d.partitions().size()));
                return 0;
            }
        }
    }
}
