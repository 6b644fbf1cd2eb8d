/** The soak's workload, plan, ledger of what was sent and expected, and report: the parts of {@code baton soak} that are not the command. */
package dev.baton.testkit.soak;
