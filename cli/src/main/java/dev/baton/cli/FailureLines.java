package dev.baton.cli;

import java.util.ArrayList;
import java.util.List;

import dev.baton.schemas.failure.ActivityFailure;

/**
 * A structured failure as a terminal shows it, under the line that gave its reason: the type and
 * message of each link of the chain, and with {@code stacks} each link's stack, indented as Java
 * prints one, so an operator reads what the handler threw without opening the history topic.
 */
final class FailureLines {

    private FailureLines() {
    }

    static List<String> of(ActivityFailure failure, boolean stacks, String indent) {
        List<String> lines = new ArrayList<>();
        String lead = "failure: ";
        for (ActivityFailure link : failure == null ? List.<ActivityFailure>of() : failure.chain()) {
            lines.add(indent + lead + link.type() + (link.message().isEmpty() ? "" : ": " + link.message().replace("\n", " ")));
            if (stacks) {
                link.stack().lines().filter(l -> !l.isBlank()).forEach(l -> lines.add(indent + "    " + l.strip()));
            }
            lead = "caused by: ";
        }
        return lines;
    }
}
