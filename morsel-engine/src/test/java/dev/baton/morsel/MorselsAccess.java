package dev.baton.morsel;

import java.nio.file.Path;

import dev.baton.morsel.morsel.MorselsAccessBridge;

final class MorselsAccess {
    private MorselsAccess() {
    }

    static long l2Bytes(Path dir) {
        return MorselsAccessBridge.l2Bytes(dir);
    }
}
