package dev.baton.morsel.kafka;

import java.lang.management.ManagementFactory;
import java.util.Map;

import dev.baton.morsel.history.HistoryLog;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * A measurement, not a test (issue 30, h/decode38): the warm replay scan's process CPU per history record against a held
 * broker, the figure a loaded machine moves least. Each run queries a fresh {@link HistoryLog} made before its clock, as
 * {@code bench replay}'s warm runs do, and reads {@code siteCount(ALL)} (the sites query over history, as replay runs it); the process's CPU over the run
 * counts the scan threads, the consumers' network threads, the collector and the JIT. Run it with one jar, then another,
 * alternating: {@code java -cp test-classes:baton.jar dev.baton.morsel.kafka.ScanCpuHarness 127.0.0.1:PORT THREADS WARMUPS RUNS}.
 */
public final class ScanCpuHarness {

    public static void main(String[] args) throws Exception {
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        int threads = Integer.parseInt(args[1]);
        int warmups = Integer.parseInt(args[2]);
        int runs = Integer.parseInt(args[3]);
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        StringBuilder line = new StringBuilder();
        for (int r = -warmups; r < runs; r++) {
            System.gc();
            try (HistoryLog log = new HistoryLog(config, "kafka://", threads)) {
                long cpu0 = os.getProcessCpuTime();
                long t0 = System.nanoTime();
                log.siteCount(HistoryLog.Scope.ALL);
                long cpu = os.getProcessCpuTime() - cpu0;
                long wall = System.nanoTime() - t0;
                long records = log.lastScan().records();
                if (r >= 0) {
                    line.append(String.format("  %.0f ns CPU (%.0f wall)", (double) cpu / records, (double) wall / records));
                }
            }
        }
        System.out.println("per history record:" + line);
        System.exit(0);
    }
}
