package dev.baton.cli;

import java.io.PrintStream;
import java.time.Instant;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.cli.options.Printable;
import dev.baton.cli.options.ClientOptions;
import dev.baton.cli.options.OutputFormat;
import dev.baton.morsel.history.OutboxEntry;
import dev.baton.morsel.history.OutboxScan;
import dev.baton.topics.BatonTopics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code baton outbox}: lists the late completions Baton relayed instead of applying them. A
 * completion or failure reported with a token the site issued, after the site resolved (a worker
 * that never heard its stop, say), is published on {@code baton.results} flagged {@code unmatched}
 * to the run's caller; the client hands it to its {@code UnmatchedResultHandler}. This command reads
 * the same records, from the beginning to the current end, and exits.
 */
@Command(name = "outbox", mixinStandardHelpOptions = true,
        description = {"List the outbox: late completions of resolved sites, relayed on baton.results flagged unmatched.",
            "Reads from the beginning to the current end and exits. Completions for unknown sites are not here: they are in baton.dlq."})
public final class OutboxCommand implements Callable<Integer> {

    @Mixin
    ClientOptions client;

    @Option(names = "--client-id", description = "Only this client's outbox: reads the one partition its results go to, "
            + "keeps the records keyed by it")
    String clientId;

    /** table, or json: one JSON object per line (as before the shared option; tools read it line by line). */
    @Mixin
    OutputFormat output;

    @Option(names = "--schema-registry-url", defaultValue = "kafka://", description = "Schema registry (default ${DEFAULT-VALUE})")
    String schemaRegistryUrl;

    private static final String ROW = "%-24s  %-32s  %7s  %-9s  %-36s  %-16s  %-20s  %9s  %s%n";

    @Override
    public Integer call() throws JsonProcessingException {
        PrintStream out = System.out;
        OutboxScan.Result result = OutboxScan.read(client.clientConfig(), schemaRegistryUrl, clientId);
        if (output.json()) {
            ObjectMapper json = new ObjectMapper();
            for (OutboxEntry e : result.entries()) {
                out.println(json.writeValueAsString(e.fields()));
            }
            return 0;
        }
        out.printf(ROW, "TIME", "SITE", "ATTEMPT", "STATUS", "REQUEST", "CLIENT", "WORKER", "OUTPUT", "REASON");
        for (OutboxEntry e : result.entries()) {
            out.printf(ROW, Instant.ofEpochMilli(e.atMillis()), Printable.of(e.site().asKey()), e.attempt(), e.status(), Printable.of(e.requestId()),
                    Printable.of(e.clientId()), Printable.of(e.workerId()), e.outputBytes() + " B", Printable.of(e.reason()));
        }
        out.printf("%d in the outbox%s (%s of %s read, %d records%s)%n", result.entries().size(),
                clientId == null ? "" : " of client " + clientId, result.partitionsRead(), BatonTopics.RESULTS, result.recordsRead(),
                result.undecodable() == 0 ? "" : ", " + result.undecodable() + " undecodable skipped");
        return 0;
    }
}
