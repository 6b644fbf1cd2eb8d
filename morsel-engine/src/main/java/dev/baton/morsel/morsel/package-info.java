/** Morsel partitioning: input split into ranges sized to half of the L2 cache. */
package dev.baton.morsel.morsel;
