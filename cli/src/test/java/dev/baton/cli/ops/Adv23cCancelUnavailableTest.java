package dev.baton.cli.ops;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;

import com.sun.net.httpserver.HttpServer;
import dev.baton.cli.CliRun;
import org.junit.jupiter.api.Test;

/**
 * adv23c: {@code baton cancel} says exit 1 means "nothing was live to cancel" and 2 an error. A streams
 * app that could not answer (503: rebalancing, the owning instance unreachable) was read as "nothing
 * live": the cancel was not sent and the operator was told there was nothing to cancel.
 */
class Adv23cCancelUnavailableTest {

    @Test
    void shouldReportAStreamsAppThatCannotAnswerAsAnErrorNotAsNothingLive() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = "{\"error\":\"the streams app is REBALANCING; try again after the rebalance\"}".getBytes(UTF_8);
            exchange.sendResponseHeaders(503, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            CliRun run = CliRun.of("cancel", "shop/order-42/charge", "--streams-app", "http://127.0.0.1:" + server.getAddress().getPort(),
                    "--bootstrap-servers", "127.0.0.1:1");
            assertThat(run.output()).doesNotContain("nothing-live");
            assertThat(run.exit()).as(run.output()).isEqualTo(2);
        } finally {
            server.stop(0);
        }
    }
}
