package dev.baton.morsel;

import java.nio.file.Path;

final class MorselsAccess {
    private MorselsAccess() {
    }

    static long l2Bytes(Path dir) {
        return dev.baton.morsel.morsel.MorselsAccessBridge.l2Bytes(dir);
    }
}
