package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import dev.baton.bench.CpuByRole.Role;
import org.junit.jupiter.api.Test;

class CpuByRoleTest {

    @Test
    void shouldAttributeThreadsToTheirRoleByName() {
        assertThat(CpuByRole.roleOf("baton-streams-0b1c-StreamThread-1")).isEqualTo(Role.STREAMS_APP);
        assertThat(CpuByRole.roleOf("kafka-producer-network-thread | baton-streams-0b1c-StreamThread-1-producer")).isEqualTo(Role.STREAMS_APP);
        assertThat(CpuByRole.roleOf("baton-activity-w-17")).isEqualTo(Role.WORKER);
        assertThat(CpuByRole.roleOf("kafka-producer-network-thread | producer-baton-worker.bench.w")).isEqualTo(Role.WORKER);
        assertThat(CpuByRole.roleOf("kafka-producer-network-thread | baton-worker-events-w")).isEqualTo(Role.WORKER);
        assertThat(CpuByRole.roleOf("baton-lease-deferral bench-worker/bench")).isEqualTo(Role.WORKER);
        assertThat(CpuByRole.roleOf("baton-results-bench")).isEqualTo(Role.CLIENT);
        assertThat(CpuByRole.roleOf("baton-callbacks-bench-client-1")).isEqualTo(Role.CLIENT);
        assertThat(CpuByRole.roleOf("kafka-producer-network-thread | baton-dispatch-bench")).isEqualTo(Role.CLIENT);
        assertThat(CpuByRole.roleOf("data-plane-kafka-request-handler-3")).isEqualTo(Role.BROKER);
        assertThat(CpuByRole.roleOf("TxnMarkerSenderThread-1")).isEqualTo(Role.BROKER);
    }

    @Test
    void shouldChargeWhatNoThreadAccountsForToOutsideJavaThreads() {
        CpuByRole.Snapshot from = new CpuByRole.Snapshot(1_000_000, Map.of(Role.BROKER, 100_000L), Map.of(), Map.of());
        CpuByRole.Snapshot to = new CpuByRole.Snapshot(11_000_000, Map.of(Role.BROKER, 2_100_000L, Role.STREAMS_APP, 3_000_000L), Map.of(), Map.of());

        String line = CpuByRole.perUnit(from, to, 1_000);

        assertThat(line).isEqualTo("broker 2, streams app 3, worker 0, client 0, outside Java threads (GC, JIT, RocksDB) 5");
    }

    @Test
    void shouldSplitOutsideJavaThreadsByNativeThreadKind() {
        CpuByRole.Snapshot from = new CpuByRole.Snapshot(0, Map.of(), Map.of(), Map.of("GC", 1_000_000L, "JIT", 0L, "RocksDB", 0L));
        CpuByRole.Snapshot to = new CpuByRole.Snapshot(10_000_000, Map.of(Role.BROKER, 2_000_000L), Map.of(),
                Map.of("GC", 4_000_000L, "JIT", 500_000L, "RocksDB", 1_500_000L));

        String line = CpuByRole.perUnit(from, to, 1_000);

        assertThat(line).isEqualTo("broker 2, streams app 0, worker 0, client 0, outside Java threads (GC, JIT, RocksDB) 8"
                + " (GC 3.0, JIT 0.5, RocksDB 1.5, rest 3.0)");
    }

    @Test
    void shouldKnowTheJvmsAndRocksDbsThreadsByTheirKernelNames() {
        assertThat(NativeThreads.kindOf("GC Thread#1")).isEqualTo("GC");
        assertThat(NativeThreads.kindOf("G1 Conc#0")).isEqualTo("GC");
        assertThat(NativeThreads.kindOf("G1 Refine#0")).isEqualTo("GC");
        assertThat(NativeThreads.kindOf("C2 CompilerThre")).isEqualTo("JIT");
        assertThat(NativeThreads.kindOf("rocksdb:low")).isEqualTo("RocksDB");
        assertThat(NativeThreads.kindOf("data-plane-kafk")).isNull();
    }

    @Test
    void shouldGiveKilobytesAllocatedPerUnitByRoleAndTheirSum() {
        CpuByRole.Snapshot from = new CpuByRole.Snapshot(0, Map.of(), Map.of(Role.BROKER, 1_000_000L), Map.of());
        CpuByRole.Snapshot to = new CpuByRole.Snapshot(0, Map.of(), Map.of(Role.BROKER, 8_700_000L, Role.STREAMS_APP, 22_700_000L), Map.of());

        String line = CpuByRole.allocatedPerUnit(from, to, 1_000);

        assertThat(line).isEqualTo("30.4 = broker 7.7, streams app 22.7, worker 0.0, client 0.0");
    }
}
