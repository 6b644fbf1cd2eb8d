/**
 * Options the {@code baton} commands share: where the cluster and its configuration are
 * ({@link dev.baton.cli.options.ClientOptions}, with {@code BATON_*} environment overrides), where a
 * streams app answers queries, and the {@code -o table|json} output option.
 */
package dev.baton.cli.options;
