package dev.baton.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay in front of the broker that can cut every connection for a while: a network outage
 * with the broker still running. Clients reach the broker only through it (the broker advertises
 * the relay's port), the broker's own connections to itself included, so a cut cuts them all.
 * During a cut new connections are accepted and closed at once, as a broker that is down would.
 */
public final class CuttableLink implements AutoCloseable {

    private static final int BUFFER_BYTES = 64 * 1024;

    private final int targetPort;
    private final ServerSocket server;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean cut;
    private volatile boolean closed;

    /** Relays a free local port to {@code targetPort} on this host. */
    public CuttableLink(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "baton-link-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The port clients connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /** Closes every connection, refuses new ones for {@code outage}, then lets them through again. */
    public void cut(Duration outage) throws InterruptedException {
        cut = true;
        open.forEach(CuttableLink::closeQuietly);
        open.clear();
        try {
            Thread.sleep(outage.toMillis()); // the outage itself
        } finally {
            cut = false;
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                if (cut) {
                    closeQuietly(client);
                    continue;
                }
                Socket broker = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                client.setTcpNoDelay(true);
                broker.setTcpNoDelay(true);
                open.add(client);
                open.add(broker);
                if (cut) { // a cut began while this connection was being set up
                    closeQuietly(client);
                    closeQuietly(broker);
                    continue;
                }
                pump(client, broker);
                pump(broker, client);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                // the broker refused (it is restarting) or the client left: that connection only
            }
        }
    }

    /** Copies one direction until either side closes, then closes both. */
    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[BUFFER_BYTES];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // a cut, or a side closed: closing both below is the answer either way
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "baton-link-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        open.forEach(CuttableLink::closeQuietly);
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
