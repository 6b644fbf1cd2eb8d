package dev.baton.streams.status;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

import dev.baton.schemas.SiteKey;
import dev.baton.streams.names.TopologyNames;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The other instances of this streams app, as Kafka Streams knows them from each one's
 * {@code application.server}: who owns a site's partition, who else to ask for a cluster-wide answer,
 * and the HTTP call that asks them for their local part ({@code local=true}, so a peer never forwards again).
 */
final class Peers {

    /** The answer of a peer: its HTTP status and body. */
    record Answer(int status, String body) { }

    private final KafkaStreams streams;
    private final HostInfo self;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    /** {@code self} is this instance's {@code application.server}; null when unset (then every answer is local). */
    Peers(KafkaStreams streams, HostInfo self) {
        this.streams = streams;
        this.self = self;
    }

    String selfName() {
        return self == null ? "local" : self.host() + ":" + self.port();
    }

    /** The active owner of {@code site}'s partition; null when it is this instance (or none is named). */
    HostInfo ownerOf(SiteKey site) {
        if (self == null) {
            return null;
        }
        KeyQueryMetadata md = streams.queryMetadataForKey(TopologyNames.SITES_STORE, site.toBytes(), new ByteArraySerializer());
        if (md == null || md.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
            throw new IllegalStateException("no instance owns the partition of site " + site.asKey() + " now (state "
                    + streams.state() + "); try again after the rebalance");
        }
        return md.activeHost().equals(self) ? null : md.activeHost();
    }

    /** Every other instance that holds tasks of this app. */
    List<HostInfo> others() {
        if (self == null) {
            return List.of();
        }
        return streams.metadataForAllStreamsClients().stream().map(StreamsMetadata::hostInfo)
                .filter(h -> !Objects.equals(h, self) && !h.equals(HostInfo.unavailable())).distinct().toList();
    }

    /** GETs {@code pathAndQuery} (which must ask for the local answer) from {@code peer}. */
    Answer get(HostInfo peer, String pathAndQuery) throws IOException, InterruptedException {
        URI uri = URI.create("http://" + peer.host() + ":" + peer.port() + pathAndQuery);
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.body());
    }
}
