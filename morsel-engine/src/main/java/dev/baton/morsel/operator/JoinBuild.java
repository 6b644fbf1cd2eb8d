package dev.baton.morsel.operator;

/** A hash join's build side as its probe sees it: a sink during the build, a key lookup after its barrier. */
public interface JoinBuild extends Sink {

    /** The payload of {@code key}, or {@code missing}; call only after the build (and its merge) finished. */
    long lookup(long key, long missing);
}
