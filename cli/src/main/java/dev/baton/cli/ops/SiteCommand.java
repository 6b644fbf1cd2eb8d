package dev.baton.cli.ops;

import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.options.Printable;
import dev.baton.cli.options.OutputFormat;
import dev.baton.cli.options.StreamsAppAddress;
import dev.baton.schemas.SiteKey;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code baton site describe <site>}: one site as the instance owning it holds it. */
@Command(name = "site", mixinStandardHelpOptions = true, description = "Look at one site.", subcommands = SiteCommand.Describe.class)
public final class SiteCommand {

    @Command(name = "describe", mixinStandardHelpOptions = true,
            description = {"Print a site: state, queue, attempt, generation, lease holder, deadlines, callers, last outcome.",
                "SITE is namespace/workflowId/activityId, with % and / percent-encoded inside a part. Exit 1 if Baton holds no such site."})
    static final class Describe implements Callable<Integer> {

        @Parameters(paramLabel = "SITE", description = "The site key, namespace/workflowId/activityId")
        String site;

        @Mixin
        StreamsAppAddress streamsApp;

        @Mixin
        OutputFormat output;

        @Override
        public Integer call() throws Exception {
            SiteKey key;
            try {
                key = SiteKey.parse(site);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            StreamsAppAddress.Answer a;
            try {
                a = streamsApp.get("/sites/" + URLEncoder.encode(key.asKey(), StandardCharsets.UTF_8));
            } catch (IllegalStateException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            if (output.json()) {
                System.out.println(a.body().toPrettyString());
            } else if (a.ok()) {
                print(System.out, a.body());
            } else {
                System.err.println(a.error());
            }
            return a.ok() ? 0 : 1;
        }

        static void print(PrintStream out, JsonNode s) {
            for (String field : new String[] {"site", "state", "queue", "activityType", "attempt", "generation", "leaseHolder", "node",
                "transportLosses", "runId", "createdAt", "owner"}) {
                out.printf("%-16s %s%n", field, s.path(field).isNull() || s.path(field).isMissingNode() ? "-" : Printable.of(s.path(field).asText()));
            }
            out.printf("%-16s%s%n", "deadlines", s.path("deadlines").isEmpty() ? " none" : "");
            for (Map.Entry<String, JsonNode> d : (Iterable<Map.Entry<String, JsonNode>>) () -> s.path("deadlines").fields()) {
                out.printf("  %-14s %s%n", d.getKey(), d.getValue().asText());
            }
            out.printf("%-16s%n", "callers");
            s.path("callers").forEach(c -> out.printf("  request %s (reply key %s)%n", Printable.of(c.path("requestId").asText()),
                    Printable.of(c.path("replyKey").asText())));
            JsonNode last = s.path("lastOutcome");
            out.printf("%-16s %s%n", "last outcome", last.isNull() || last.isMissingNode() ? "-"
                    : "attempt " + last.path("attempt").asInt() + " " + last.path("status").asText()
                    + (last.path("reason").isNull() ? "" : " (" + Printable.of(last.path("reason").asText()) + ")")
                    + (last.path("previousRun").asBoolean() ? ", previous run" : ""));
        }
    }
}
