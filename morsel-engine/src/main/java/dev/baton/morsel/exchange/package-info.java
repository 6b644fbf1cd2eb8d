/** The hash exchange: which partition a group key goes to, the same on every node (exchange partitions map 1:1 to Kafka partitions). */
package dev.baton.morsel.exchange;
