package dev.baton.streams.status;

import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import com.sun.net.httpserver.HttpHandler;
import dev.baton.events.WorkerStatus;
import dev.baton.events.store.SiteState;
import dev.baton.schemas.EventSerde;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;

/** Builds the query API ({@link StatusHandler}) of a streams app instance; the one public door into this package's readers. */
public final class StatusEndpoints {

    private StatusEndpoints() {
    }

    /**
     * @param self this instance's {@code application.server}, or null when unset (every answer is then this instance's alone)
     * @param adminConfig settings of the Admin client each status report opens (for consumer lag)
     */
    public static HttpHandler queries(KafkaStreams streams, EventSerde<SiteState> sites, EventSerde<WorkerStatus> workers,
                                      Map<String, Object> adminConfig, Supplier<Set<String>> unserved, HostInfo self) {
        Supplier<StatusReport> reports = () -> new StatusReport(streams, sites, workers, Admin.create(adminConfig), unserved);
        return new StatusHandler(reports, new LocalSites(streams, sites), new Peers(streams, self));
    }
}
