/**
 * {@code baton bench}: Baton's figures beside a peer's from the same run — dispatch against a raw three-hop Kafka
 * flow, the morsel engine against fused loops and DuckDB. Results are read in docs/benchmarks/.
 */
package dev.baton.bench;
