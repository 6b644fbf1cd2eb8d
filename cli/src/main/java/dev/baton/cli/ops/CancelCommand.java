package dev.baton.cli.ops;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.cli.options.ClientOptions;
import dev.baton.cli.options.OutputFormat;
import dev.baton.cli.options.Printable;
import dev.baton.cli.options.StreamsAppAddress;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.UnmatchedResultHandler;
import dev.baton.schemas.Reasons;
import dev.baton.schemas.SiteKey;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code baton cancel <site>}: sends the site a {@code CANCEL} dispatch command, as
 * {@code DispatchClient.cancel} does, and answers with what became of it: the site's callers got
 * {@code cancelled:} (exit 0), or there was nothing live to cancel (exit 1), read from the streams
 * app's query API. A cancel of nothing live is ignored by Baton, so it is not sent.
 */
@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = {"Cancel whatever attempt of a site is live: its worker is told to stop, its callers get 'cancelled:'.",
            "Exit 0 once the site resolved cancelled, 1 if nothing was live to cancel or it resolved otherwise first, 2 on errors."})
public final class CancelCommand implements Callable<Integer> {

    @Parameters(paramLabel = "SITE", description = "The site key, namespace/workflowId/activityId")
    String site;

    @Option(names = "--timeout-seconds", defaultValue = "30", description = "How long to wait for the site to resolve (default ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Mixin
    ClientOptions client;

    @Mixin
    StreamsAppAddress streamsApp;

    @Mixin
    OutputFormat output;

    private final ObjectMapper json = new ObjectMapper();

    @Override
    public Integer call() throws Exception {
        SiteKey key;
        try {
            key = SiteKey.parse(site);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        String path = "/sites/" + URLEncoder.encode(key.asKey(), StandardCharsets.UTF_8);
        try {
            StreamsAppAddress.Answer before = streamsApp.get(path);
            if (!before.ok() && before.status() != 404) {
                // 503 (rebalancing, the owning instance unreachable) or any other error: whether the site is live is unknown,
                // so nothing is sent, and it is an error, not "nothing live" (adv23c)
                return answer(key, "unknown", "the streams app could not say whether the site is live (HTTP " + before.status() + ": "
                        + before.error() + "); nothing was sent", null, 2);
            }
            if (!before.ok() || "RESOLVED".equals(before.body().path("state").asText())) {
                return answer(key, "nothing-live", before.ok() ? "the site is already resolved" : before.error(), before.body(), 1);
            }
            send(key);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            while (System.nanoTime() < deadline) {
                StreamsAppAddress.Answer now = streamsApp.get(path);
                if (now.ok() && "RESOLVED".equals(now.body().path("state").asText())) {
                    String reason = now.body().path("lastOutcome").path("reason").asText("");
                    boolean cancelled = reason.startsWith(Reasons.CANCELLED);
                    return answer(key, cancelled ? "cancelled" : "resolved-otherwise", reason, now.body(), cancelled ? 0 : 1);
                }
                // Polling the query API: the cancel's effect is a state change, not a message to this process.
                TimeUnit.MILLISECONDS.sleep(200);
            }
            return answer(key, "timed-out", "the cancel was sent; the site had not resolved within " + timeoutSeconds + " s", null, 2);
        } catch (IllegalStateException e) {
            System.err.println(e.getMessage());
            return 2;
        }
    }

    private void send(SiteKey key) throws Exception {
        Map<String, Object> config = new HashMap<>(client.clientConfig());
        config.putIfAbsent("baton.client.id", "cli-cancel-" + UUID.randomUUID());
        try (DispatchClient c = DispatchClient.create(config, UnmatchedResultHandler.IGNORE)) {
            c.cancel(key).get(Duration.ofSeconds(30).toSeconds(), TimeUnit.SECONDS);
        }
    }

    private int answer(SiteKey key, String result, String detail, JsonNode site, int exit) {
        if (output.json()) {
            var node = json.createObjectNode().put("site", key.asKey()).put("result", result).put("detail", detail);
            if (site != null && site.has("state")) {
                node.set("siteState", site);
            }
            System.out.println(node.toPrettyString());
        } else {
            System.out.println(Printable.of(key.asKey()) + ": " + result + " (" + Printable.of(detail) + ")");
        }
        return exit;
    }
}
