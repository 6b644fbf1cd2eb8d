package dev.baton.streams.status;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.baton.events.store.SiteState;
import dev.baton.schemas.SiteKey;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The streams app's query API, answered for the whole app whichever instance is asked:
 * <ul>
 *   <li>{@code GET /status}: every instance's {@link StatusReport}, added up ({@code instances} lists who answered);</li>
 *   <li>{@code GET /sites?state=S&queue=Q&limit=N}: site rows of every instance;</li>
 *   <li>{@code GET /sites/<site key, URL-encoded>}: one site, read from the instance that owns its
 *       partition (this one forwards the request; 404 when no instance holds it);</li>
 * </ul>
 * each with {@code local=true} for this instance's part only (what peers ask each other). Errors are
 * JSON {@code {"error": ...}}: 400 for a bad request, 404 for an unknown path or site, 503 while the
 * app cannot answer (not RUNNING, rebalancing, a peer unreachable for a forwarded site).
 */
public final class StatusHandler implements HttpHandler {

    private static final int DEFAULT_LIST_LIMIT = 1_000;

    private final ObjectMapper json = new ObjectMapper();
    private final Supplier<StatusReport> reports;
    private final LocalSites local;
    private final Peers peers;

    StatusHandler(Supplier<StatusReport> reports, LocalSites local, Peers peers) {
        this.reports = reports;
        this.local = local;
        this.peers = peers;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getRawPath();
        Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
        boolean localOnly = Boolean.parseBoolean(query.get("local"));
        JsonNode body;
        int code = 200;
        try {
            if (path.equals("/status")) {
                body = localOnly ? localStatus() : clusterStatus();
            } else if (path.equals("/sites")) {
                body = sites(query, localOnly);
            } else if (path.startsWith("/sites/")) {
                String key = URLDecoder.decode(path.substring("/sites/".length()), StandardCharsets.UTF_8);
                Answer a = site(key, localOnly);
                code = a.code();
                body = a.body();
            } else {
                code = 404;
                body = error("no such path: " + path + " (try /status, /sites, /sites/<site key>)");
            }
        } catch (IllegalArgumentException e) {
            code = 400;
            body = error(e.getMessage());
        } catch (RuntimeException e) {
            code = 503;
            body = error("cannot answer now: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            code = 503;
            body = error("interrupted");
        }
        byte[] bytes = json.writerWithDefaultPrettyPrinter().writeValueAsBytes(body);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(code, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private record Answer(int code, JsonNode body) { }

    private ObjectNode localStatus() {
        try (StatusReport report = reports.get()) {
            ObjectNode s = report.snapshot();
            s.put("instance", peers.selfName());
            return s;
        }
    }

    /** This instance's status with every peer's added: sites summed, unserved queues joined, one entry per instance. */
    private ObjectNode clusterStatus() throws InterruptedException {
        ObjectNode total = localStatus();
        ArrayNode instances = json.createArrayNode();
        instances.addObject().put("instance", total.remove("instance").asText()).put("state", total.get("state").asText());
        TreeSet<String> unserved = new TreeSet<>();
        total.get("unservedQueues").forEach(q -> unserved.add(q.asText()));
        for (HostInfo peer : peers.others()) {
            String name = peer.host() + ":" + peer.port();
            try {
                Peers.Answer a = peers.get(peer, "/status?local=true");
                JsonNode s = json.readTree(a.body());
                if (a.status() != 200) {
                    instances.addObject().put("instance", name).put("error", s.path("error").asText("HTTP " + a.status()));
                    continue;
                }
                instances.addObject().put("instance", name).put("state", s.path("state").asText());
                addCounts((ObjectNode) total.get("sitesByState"), s.path("sitesByState"));
                ObjectNode byQueue = (ObjectNode) total.get("sitesByQueue");
                s.path("sitesByQueue").fields().forEachRemaining(q -> addCounts(byQueue.has(q.getKey()) ? (ObjectNode) byQueue.get(q.getKey())
                        : byQueue.putObject(q.getKey()), q.getValue()));
                s.path("unservedQueues").forEach(q -> unserved.add(q.asText()));
            } catch (IOException e) {
                instances.addObject().put("instance", name).put("error", "unreachable: " + e);
            }
        }
        total.set("unservedQueues", json.valueToTree(unserved));
        total.set("instances", instances);
        return total;
    }

    private static void addCounts(ObjectNode into, JsonNode from) {
        for (Iterator<Map.Entry<String, JsonNode>> it = from.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            into.put(e.getKey(), into.path(e.getKey()).asLong(0) + e.getValue().asLong());
        }
    }

    private ObjectNode sites(Map<String, String> query, boolean localOnly) throws InterruptedException {
        int limit = limit(query.get("limit"));
        String state = query.get("state");
        String queue = query.get("queue");
        ObjectNode out = json.createObjectNode();
        ArrayNode rows = out.putArray("sites");
        ArrayNode errors = out.putArray("errors");
        local.list(state, queue, limit).forEach(rows::add);
        if (!localOnly) {
            StringBuilder ask = new StringBuilder("/sites?local=true&limit=").append(limit);
            query.forEach((k, v) -> {
                if (k.equals("state") || k.equals("queue")) {
                    ask.append('&').append(k).append('=').append(java.net.URLEncoder.encode(v, StandardCharsets.UTF_8));
                }
            });
            for (HostInfo peer : peers.others()) {
                try {
                    JsonNode peerRows = json.readTree(peers.get(peer, ask.toString()).body()).path("sites");
                    peerRows.forEach(r -> {
                        if (rows.size() < limit) {
                            rows.add(r);
                        }
                    });
                } catch (IOException e) {
                    errors.add(peer.host() + ":" + peer.port() + " unreachable: " + e);
                }
            }
        }
        out.put("truncated", rows.size() >= limit);
        return out;
    }

    private Answer site(String key, boolean localOnly) throws InterruptedException {
        SiteKey site = SiteKey.parse(key);
        HostInfo owner = localOnly ? null : peers.ownerOf(site);
        if (owner != null) {
            try {
                Peers.Answer a = peers.get(owner, "/sites/" + java.net.URLEncoder.encode(key, StandardCharsets.UTF_8) + "?local=true");
                return new Answer(a.status(), json.readTree(a.body()));
            } catch (IOException e) {
                return new Answer(503, error("site " + key + " is owned by " + owner.host() + ":" + owner.port() + ", which is unreachable: " + e));
            }
        }
        Optional<SiteState> state = local.get(site);
        return state.<Answer>map(s -> new Answer(200, SiteView.describe(site, s, peers.selfName())))
                .orElseGet(() -> new Answer(404, error("no site " + key + ": never dispatched, or resolved longer ago than the dedupe window")));
    }

    private static int limit(String value) {
        if (value == null) {
            return DEFAULT_LIST_LIMIT;
        }
        try {
            int limit = Integer.parseInt(value);
            if (limit < 1) {
                throw new IllegalArgumentException("limit must be >= 1, was " + limit);
            }
            return limit;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("limit must be a number, was '" + value + "'");
        }
    }

    private ObjectNode error(String message) {
        return json.createObjectNode().put("error", message);
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            out.put(k, v);
        }
        return out;
    }
}
