package dev.baton.cli.ops;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.options.OutputFormat;
import dev.baton.cli.options.Printable;
import dev.baton.cli.options.StreamsAppAddress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code baton status}: the streams app's view, added up over every instance — sites by state and queue, unserved queues, workers, lag. */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Print the streams app's status for all its instances: sites by state and queue, unserved queues, workers, lag.")
public final class StatusCommand implements Callable<Integer> {

    private static final String[] STATES = {"PENDING", "LEASED", "BACKOFF", "UNSERVED", "RESOLVED"};

    @Mixin
    StreamsAppAddress streamsApp;

    @Mixin
    OutputFormat output;

    @Option(names = "--status-url", hidden = true, description = "The status URL itself (before --streams-app); its path is ignored")
    java.net.URI statusUrl;

    @Override
    public Integer call() throws Exception {
        if (statusUrl != null) {
            streamsApp.base(statusUrl);
        }
        StreamsAppAddress.Answer a;
        try {
            a = streamsApp.get("/status");
        } catch (IllegalStateException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        PrintStream out = System.out;
        if (output.json()) {
            out.println(a.body().toPrettyString());
        } else if (!a.ok()) {
            System.err.println("status unavailable: " + a.error());
        } else {
            print(out, a.body());
        }
        return a.ok() ? 0 : 1;
    }

    static void print(PrintStream out, JsonNode s) {
        List<String> instances = new ArrayList<>();
        s.path("instances").forEach(i -> instances.add(i.path("instance").asText() + " " + i.path("state").asText(i.path("error").asText())));
        out.printf("streams app %s, %d instance(s): %s%n", s.path("state").asText(), instances.size(), String.join(", ", instances));
        out.println();
        StringBuilder header = new StringBuilder(String.format("%-24s", "SITES"));
        for (String state : STATES) {
            header.append(String.format(" %9s", state));
        }
        out.println(header);
        out.println(countsRow("(all queues)", s.path("sitesByState")));
        s.path("sitesByQueue").fields().forEachRemaining(q -> out.println(countsRow(Printable.of(q.getKey()), q.getValue())));
        TreeSet<String> unserved = new TreeSet<>();
        s.path("unservedQueues").forEach(q -> unserved.add(Printable.of(q.asText())));
        out.println();
        out.println("unserved queues: " + (unserved.isEmpty() ? "none" : String.join(", ", unserved)));
        out.println();
        out.printf("%-36s %-24s %8s %9s %8s  %s%n", "WORKER", "QUEUES", "CAPACITY", "IN-FLIGHT", "DRAINING", "LAST SEEN");
        for (JsonNode w : s.path("workers")) {
            List<String> queues = new ArrayList<>();
            w.path("queues").forEach(q -> queues.add(Printable.of(q.asText())));
            out.printf("%-36s %-24s %8d %9d %8s  %s%n", Printable.of(w.path("workerId").asText()), String.join(",", queues), w.path("capacity").asInt(),
                    w.path("inFlight").asInt(), w.path("draining").asBoolean(), Instant.ofEpochMilli(w.path("lastSeenMillis").asLong()));
        }
        out.println();
        out.printf("%-24s %9s%n", "QUEUE", "LAG");
        for (Map.Entry<String, JsonNode> e : (Iterable<Map.Entry<String, JsonNode>>) () -> s.path("lagByQueue").fields()) {
            out.printf("%-24s %9d%n", Printable.of(e.getKey()), e.getValue().asLong());
        }
    }

    private static String countsRow(String name, JsonNode counts) {
        StringBuilder row = new StringBuilder(String.format("%-24s", name));
        for (String state : STATES) {
            row.append(String.format(" %9d", counts.path(state).asLong()));
        }
        return row.toString();
    }
}
