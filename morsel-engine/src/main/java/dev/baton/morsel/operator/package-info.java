/** Operators over primitive columns: aggregation and join hash tables without boxing. */
package dev.baton.morsel.operator;
