/** The catalog of every metric Baton serves ({@link dev.baton.metrics.BatonMetric}): name, description, type and tags, enforced at registration. */
package dev.baton.metrics;
