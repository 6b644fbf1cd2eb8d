package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CuttableLinkTest {

    private ServerSocket echo;
    private CuttableLink link;

    @BeforeEach
    void start() throws IOException {
        echo = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::serveEcho, "echo");
        t.setDaemon(true);
        t.start();
        link = new CuttableLink(echo.getLocalPort());
    }

    @AfterEach
    void stop() throws IOException {
        link.close();
        echo.close();
    }

    @Test
    void shouldRelayBytesBothWays() throws IOException {
        try (Socket s = connect()) {
            assertThat(roundTrip(s, 42)).isEqualTo(42);
        }
    }

    @Test
    void shouldCloseOpenConnectionsAndRefuseNewOnesUntilTheCutEnds() throws Exception {
        try (Socket before = connect()) {
            assertThat(roundTrip(before, 1)).isEqualTo(1);

            CompletableFuture<Void> cut = CompletableFuture.runAsync(() -> {
                try {
                    link.cut(Duration.ofSeconds(5));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });

            assertThat(before.getInputStream().read()).as("the open connection is closed by the cut").isEqualTo(-1);
            try (Socket during = connect()) {
                assertThat(during.getInputStream().read()).as("a new connection during the cut is closed at once").isEqualTo(-1);
            }
            cut.get(30, TimeUnit.SECONDS);
        }
        try (Socket after = connect()) {
            assertThat(roundTrip(after, 7)).isEqualTo(7);
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), link.port());
        s.setSoTimeout(30_000);
        return s;
    }

    private static int roundTrip(Socket s, int b) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(b);
        out.flush();
        InputStream in = s.getInputStream();
        return in.read();
    }

    private void serveEcho() {
        while (!echo.isClosed()) {
            try {
                Socket s = echo.accept();
                Thread t = new Thread(() -> {
                    try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                        int b;
                        while ((b = in.read()) >= 0) {
                            out.write(b);
                            out.flush();
                        }
                    } catch (IOException e) {
                        // the link closed it
                    }
                }, "echo-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }
}
