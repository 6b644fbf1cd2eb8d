package dev.baton.it;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1, made with the JDK's keytool: a PKCS12 key store for the
 * broker and a trust store holding only that certificate for clients.
 */
record SelfSignedTls(Path keyStore, Path trustStore, String password) {

    static SelfSignedTls generate(Path dir) throws IOException, InterruptedException {
        String password = "baton-test-" + Long.toHexString(System.nanoTime());
        Path keyStore = dir.resolve("broker.p12");
        Path cert = dir.resolve("broker.crt");
        Path trustStore = dir.resolve("clients-trust.p12");
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
                "-keystore", keyStore.toString(), "-storetype", "PKCS12", "-storepass", password, "-keypass", password);
        keytool("-exportcert", "-alias", "broker", "-keystore", keyStore.toString(), "-storepass", password, "-rfc", "-file", cert.toString());
        keytool("-importcert", "-noprompt", "-alias", "broker", "-file", cert.toString(),
                "-keystore", trustStore.toString(), "-storetype", "PKCS12", "-storepass", password);
        return new SelfSignedTls(keyStore, trustStore, password);
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool " + args[0] + " failed: " + out);
        }
    }
}
