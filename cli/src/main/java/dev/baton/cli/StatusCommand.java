package dev.baton.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code baton status}: the streams app's view — sites by state and queue, unserved queues, workers, lag. */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Print the streams app's status JSON (start it with status.port set).")
public final class StatusCommand implements Callable<Integer> {

    @Option(names = "--status-url", defaultValue = "http://localhost:9402/status",
            description = "The streams app's status endpoint (default ${DEFAULT-VALUE})")
    URI url;

    @Override
    public Integer call() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> response;
        try {
            response = http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            System.err.println("cannot reach " + url + " (" + e.getMessage() + "): is the streams app running with status.port set?");
            return 2;
        }
        System.out.println(response.body());
        return response.statusCode() == 200 ? 0 : 1;
    }
}
