package dev.baton.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;

import dev.baton.cli.options.ClientOptions;
import dev.baton.topics.ClientConfigs;
import dev.baton.topics.RoleAcls.Role;
import dev.baton.topics.RoleAcls;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.errors.SecurityDisabledException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code baton acl apply}: writes one role's ACLs (DESIGN §10) for one principal. */
@Command(name = "acl", description = "Access control for Baton's roles.", mixinStandardHelpOptions = true,
        subcommands = {AclCommand.Apply.class})
public final class AclCommand {

    @Command(name = "apply", mixinStandardHelpOptions = true,
            description = "Grant a principal exactly what its role needs. Idempotent: applying twice changes nothing.")
    static final class Apply implements Callable<Integer> {
        @Mixin
        ClientOptions client;

        @Option(names = "--role", required = true, description = "dispatcher, worker, streams-app, engine or operator")
        String role;

        @Option(names = "--principal", required = true, description = "The Kafka principal, e.g. User:orders-worker")
        String principal;

        @Option(names = "--queue", description = "For workers: a queue it serves (repeatable)")
        List<String> queues = new ArrayList<>();

        @Option(names = "--client-id", description = "For dispatchers: a baton.client.id it uses (repeatable); it may keep "
                + "the results position of these clients only")
        List<String> clientIds = new ArrayList<>();

        @Option(names = "--application-id", defaultValue = "baton-streams",
                description = "For the streams app: its application.id (default ${DEFAULT-VALUE})")
        String applicationId;

        @Option(names = "--dry-run", description = "Print the bindings without writing them")
        boolean dryRun;

        @Override
        public Integer call() throws InterruptedException {
            List<AclBinding> bindings;
            try {
                bindings = RoleAcls.of(Role.parse(role), principal, queues, applicationId, clientIds);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage()); // bad input: the message names the constraint and the value
                return 2;
            }
            bindings.forEach(b -> System.out.println(describe(b)));
            if (dryRun) {
                System.out.printf("%d bindings for %s as %s (dry run, nothing written)%n", bindings.size(), principal, role);
                return 0;
            }
            try (Admin admin = Admin.create(ClientConfigs.admin(client.clientConfig()))) {
                admin.createAcls(bindings).all().get();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof SecurityDisabledException) {
                    System.err.println("the cluster has no authorizer (authorizer.class.name is unset); ACLs cannot be applied");
                    return 2;
                }
                System.err.println("applying ACLs failed: " + e.getCause());
                return 2;
            }
            System.out.printf("applied %d bindings for %s as %s%n", bindings.size(), principal, role);
            return 0;
        }

        private static String describe(AclBinding b) {
            return String.format("  %-6s %-16s %-9s %-32s %s", b.entry().permissionType(), b.pattern().resourceType(),
                    b.pattern().patternType(), b.pattern().name(), b.entry().operation());
        }
    }
}
