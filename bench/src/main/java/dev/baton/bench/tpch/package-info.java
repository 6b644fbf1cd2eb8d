/** TPC-H data (the Trino generator), the queries on the engine and as fused loops, and DuckDB as the peer that checks their answers. */
package dev.baton.bench.tpch;
