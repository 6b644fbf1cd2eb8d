package dev.baton.cli.ops;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.options.Printable;
import dev.baton.cli.options.OutputFormat;
import dev.baton.cli.options.StreamsAppAddress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code baton sites list [--state S] [--queue Q]}: the sites every streams app instance holds. */
@Command(name = "sites", mixinStandardHelpOptions = true, description = "List sites.", subcommands = SitesCommand.List.class)
public final class SitesCommand {

    /** The states a site can be in, as {@code --state} takes them. */
    enum State { PENDING, LEASED, BACKOFF, UNSERVED, RESOLVED }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "List the sites of every streams app instance, live ones and those resolved within the dedupe window.")
    static final class List implements Callable<Integer> {

        @Option(names = "--state", description = "Only sites in this state: ${COMPLETION-CANDIDATES}")
        State state;

        @Option(names = "--queue", description = "Only sites of this queue")
        String queue;

        @Option(names = "--limit", defaultValue = "1000", description = "At most this many rows (default ${DEFAULT-VALUE})")
        int limit;

        @Mixin
        StreamsAppAddress streamsApp;

        @Mixin
        OutputFormat output;

        @Override
        public Integer call() throws Exception {
            if (limit < 1) {
                System.err.println("--limit must be >= 1, was " + limit);
                return 2;
            }
            StringBuilder q = new StringBuilder("/sites?limit=").append(limit);
            if (state != null) {
                q.append("&state=").append(state);
            }
            if (queue != null) {
                q.append("&queue=").append(URLEncoder.encode(queue, StandardCharsets.UTF_8));
            }
            StreamsAppAddress.Answer a;
            try {
                a = streamsApp.get(q.toString());
            } catch (IllegalStateException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            if (output.json()) {
                System.out.println(a.body().toPrettyString());
                return a.ok() ? 0 : 1;
            }
            if (!a.ok()) {
                System.err.println(a.error());
                return 1;
            }
            String row = "%-48s %-9s %-16s %-16s %7s %10s  %s%n";
            System.out.printf(row, "SITE", "STATE", "QUEUE", "ACTIVITY TYPE", "ATTEMPT", "GENERATION", "LEASE HOLDER");
            for (JsonNode s : a.body().path("sites")) {
                System.out.printf(row, Printable.of(s.path("site").asText()), s.path("state").asText(), Printable.of(s.path("queue").asText()),
                        Printable.of(s.path("activityType").asText()), s.path("attempt").asInt(), s.path("generation").asInt(),
                        s.path("leaseHolder").isNull() ? "-" : Printable.of(s.path("leaseHolder").asText()));
            }
            System.out.printf("%d site(s)%s%n", a.body().path("sites").size(), a.body().path("truncated").asBoolean() ? " (--limit reached)" : "");
            a.body().path("errors").forEach(e -> System.err.println("not included: " + e.asText()));
            return 0;
        }
    }
}
