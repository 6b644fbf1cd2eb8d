package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

import org.junit.jupiter.api.Test;

/**
 * adv23c: {@code baton acl apply} writes one role for one principal (docs/security.md). {@code User:*}
 * is Kafka's wildcard: every principal, ANONYMOUS included. Given it (a careless paste, a shell glob
 * quoted wrong), the command granted every client the streams app's writes to tasks, results and
 * history, which is the whole of DESIGN §10 undone, and said "applied".
 */
class Adv23cAclWildcardTest {

    @Test
    void shouldRefuseTheWildcardPrincipalNamingIt() {
        for (String role : new String[] {"streams-app", "dispatcher", "operator"}) {
            PrintStream originalErr = System.err;
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            CliRun run;
            try {
                System.setErr(new PrintStream(err, true, UTF_8));
                run = CliRun.of("acl", "apply", "--role", role, "--principal", "User:*", "--client-id", "c", "--dry-run");
            } finally {
                System.setErr(originalErr);
            }
            assertThat(run.exit()).as(role + ": " + run.output()).isNotZero();
            assertThat(err.toString(UTF_8)).as(role).contains("User:*");
            assertThat(run.output()).as(role).doesNotContain("ALLOW");
        }
    }
}
