/**
 * Warming a measured loop up until the JIT compiler is quiet, for every bench that times warm runs ({@code bench morsel},
 * {@code bench replay}): below both, so neither bench's package depends on the other's.
 */
package dev.baton.bench.warmup;
