package dev.baton.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU used by every process but this one, from /proc (Linux); 0 elsewhere. */
final class OtherCpu {
    static final long HZ = 100;

    static long othersJiffies() {
        try {
            String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i : new int[] {1, 2, 3, 6, 7, 8}) { // user nice system irq softirq steal
                busy += Long.parseLong(cpu[i]);
            }
            String[] self = Files.readString(Path.of("/proc/self/stat")).replaceAll("^.*\\) ", "").split(" ");
            long own = Long.parseLong(self[11]) + Long.parseLong(self[12]);
            return busy - own;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
