package dev.baton.morsel.morsel;

import java.nio.file.Path;

/** Exposes package-private parts of {@link Morsels} to tests in other packages. */
public final class MorselsAccessBridge {
    private MorselsAccessBridge() {
    }

    public static long l2Bytes(Path dir) {
        return Morsels.l2Bytes(dir);
    }
}
