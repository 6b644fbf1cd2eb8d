/** Topic partitions as the engine's input: offset-range morsels, parallel folds, and whole-topic scans up to the end offsets of the moment. */
package dev.baton.morsel.kafka;
