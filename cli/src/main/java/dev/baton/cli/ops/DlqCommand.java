package dev.baton.cli.ops;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.cli.options.Printable;
import dev.baton.cli.options.ClientOptions;
import dev.baton.cli.options.OutputFormat;
import dev.baton.events.DeadLetter;
import dev.baton.topics.ClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code baton dlq list|replay}: the dead letters of {@code baton.dlq}, and putting them back where they came from. */
@Command(name = "dlq", mixinStandardHelpOptions = true, description = "Dead letters: records no Baton process could use.",
        subcommands = {DlqCommand.List.class, DeadLetterReplay.class})
public final class DlqCommand {

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "List baton.dlq from the beginning to its current end: time, source topic/partition/offset, reason, whether replayed.")
    static final class List implements Callable<Integer> {

        @Mixin
        ClientOptions client;

        @Mixin
        OutputFormat output;

        @Option(names = "--schema-registry-url", defaultValue = "kafka://", description = "Schema registry (default ${DEFAULT-VALUE})")
        String schemaRegistryUrl;

        @Override
        public Integer call() {
            Map<String, Object> config = client.clientConfig();
            java.util.List<DeadLetterScan.Entry> entries = DeadLetterScan.read(config, schemaRegistryUrl);
            Map<Integer, ReplayLedger> ledgers;
            try (Admin admin = Admin.create(ClientConfigs.admin(config))) {
                ledgers = DeadLetterScan.ledgers(admin);
            }
            if (output.json()) {
                // One object per line, as baton outbox prints its records: a log's records stream into jq.
                ObjectMapper json = new ObjectMapper();
                entries.forEach(e -> System.out.println(toJson(json, e, replayed(ledgers, e)).toString()));
                return 0;
            }
            String row = "%-8s %-24s %-28s %9s %10s %-8s %-24s %s%n";
            System.out.printf(row, "DLQ", "TIME", "SOURCE TOPIC", "PARTITION", "OFFSET", "REPLAYED", "PROCESS", "REASON");
            for (DeadLetterScan.Entry e : entries) {
                DeadLetter d = e.letter();
                if (d == null) {
                    System.out.printf(row, e.position(), "-", "-", "-", "-", "-", "-", "undecodable dead letter: " + e.undecodable());
                    continue;
                }
                System.out.printf(row, e.position(), Instant.ofEpochMilli(d.getAtMillis()), Printable.of(d.getSourceTopic()), d.getSourcePartition(),
                        d.getSourceOffset(), replayed(ledgers, e) ? "yes" : "no", Printable.of(d.getProcess()), Printable.of(d.getReason()));
            }
            System.out.printf("%d dead letter(s)%n", entries.size());
            return 0;
        }
    }

    static boolean replayed(Map<Integer, ReplayLedger> ledgers, DeadLetterScan.Entry e) {
        ReplayLedger l = ledgers.get(e.partition());
        return l != null && l.contains(e.offset());
    }

    static ObjectNode toJson(ObjectMapper json, DeadLetterScan.Entry e, boolean replayed) {
        ObjectNode n = json.createObjectNode().put("dlqPartition", e.partition()).put("dlqOffset", e.offset()).put("replayed", replayed);
        DeadLetter d = e.letter();
        if (d == null) {
            return n.put("undecodable", e.undecodable());
        }
        n.put("time", Instant.ofEpochMilli(d.getAtMillis()).toString()).put("sourceTopic", d.getSourceTopic())
                .put("sourcePartition", d.getSourcePartition()).put("sourceOffset", d.getSourceOffset()).put("reason", d.getReason())
                .put("process", d.getProcess());
        n.put("key", d.getKey() == null ? null : StandardCharsets.UTF_8.decode(d.getKey().duplicate()).toString());
        n.put("valueBytes", d.getValue() == null ? 0 : d.getValue().remaining());
        return n;
    }
}
