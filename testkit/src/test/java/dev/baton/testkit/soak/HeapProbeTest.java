package dev.baton.testkit.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeapProbeTest {

    @Test
    void shouldAddTheGenerationsOfASerialHeap() {
        String info = """
                12345:
                 def new generation   total 9792K, used 1000K [0x00000000e8000000, 0x00000000e8aa0000, 0x00000000f0000000)
                  eden space 8704K,  11% used [0x00000000e8000000, 0x00000000e80fa000, 0x00000000e8880000)
                  from space 1088K,   0% used [0x00000000e8880000, 0x00000000e8880000, 0x00000000e8990000)
                 tenured generation   total 21888K, used 2000K [0x00000000f0000000, 0x00000000f1560000, 0x0000000100000000)
                   the space 21888K,   9% used [0x00000000f0000000, 0x00000000f01f4000, 0x00000000f01f4000, 0x00000000f1560000)
                 Metaspace       used 30000K, committed 30500K, reserved 1114112K
                """;

        assertThat(HeapProbe.usedHeapBytes(info)).isEqualTo(3000L * 1024);
    }

    @Test
    void shouldReadAG1HeapAndNothingFromOtherOutput() {
        assertThat(HeapProbe.usedHeapBytes(" garbage-first heap   total 262144K, used 51200K [0x0000000700000000, 0x0000000800000000)\n"
                + "  region size 1024K, 3 young (3072K), 0 survivors (0K)\n Metaspace used 1K, committed 2K, reserved 3K"))
                .isEqualTo(51200L * 1024);
        assertThat(HeapProbe.usedHeapBytes("12345:\nCommand executed successfully\n")).isEqualTo(-1);
    }

    @Test
    void shouldSumTheFilesUnderADirectory(@TempDir Path dir) throws Exception {
        Files.write(dir.resolve("a.sst"), new byte[1000]);
        Files.createDirectories(dir.resolve("sub"));
        Files.write(dir.resolve("sub").resolve("b.log"), new byte[24]);

        assertThat(HeapProbe.directoryBytes(dir)).isEqualTo(1024);
        assertThat(HeapProbe.directoryBytes(dir.resolve("missing"))).isZero();
    }
}
