package dev.baton.bench.replay;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import dev.baton.topics.ClientConfigs;

/**
 * Warm scans in one JVM against a held broker, with the process CPU of each run: {@code kinds threads bootstrap
 * warmups runs} (kinds comma-separated, e.g. {@code RAW,REPLAY}). Kinds alternate run by run, as {@code bench
 * replay}'s warm runs do, so drift on a shared machine hits all alike. Prints one line per measured run: records,
 * wall seconds, records/s, process CPU seconds, CPU ns per record, collector time; then each kind's medians. CPU per
 * record is the figure the machine's load moves least (the other helpers' work is not this process's CPU).
 */
final class WarmScans {

    private WarmScans() {
    }

    public static void main(String[] args) throws Exception {
        List<ScanKind> kinds = new ArrayList<>();
        for (String k : args[0].split(",")) {
            kinds.add(ScanKind.valueOf(k));
        }
        int threads = Integer.parseInt(args[1]);
        Map<String, Object> config = ClientConfigs.bootstrap(args[2]);
        int warmups = Integer.parseInt(args[3]);
        int runs = Integer.parseInt(args[4]);
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Map<ScanKind, ScanProbe> probes = new EnumMap<>(ScanKind.class);
        Map<ScanKind, List<double[]>> measured = new EnumMap<>(ScanKind.class);
        try {
            for (ScanKind kind : kinds) {
                probes.put(kind, new ScanProbe(kind, config, threads));
                measured.put(kind, new ArrayList<>());
            }
            for (int i = -warmups; i < runs; i++) {
                for (ScanKind kind : kinds) {
                    long cpu0 = os.getProcessCpuTime();
                    long gc0 = gcMillis();
                    ScanProbe.Run r = probes.get(kind).run();
                    long cpu = os.getProcessCpuTime() - cpu0;
                    long gc = gcMillis() - gc0;
                    double[] m = {r.recordsPerSecond(), cpu / (double) r.records(), r.nanos() / 1e9, cpu / 1e9, gc};
                    System.out.printf("%s %-8s threads=%d records=%d wall=%.2fs records/s=%,.0f cpu=%.2fs cpu/record=%.0fns gc=%dms load=%s%n",
                            i < 0 ? "warmup" : "run   ", kind, threads, r.records(), m[2], m[0], m[3], m[1], gc, load());
                    if (i >= 0) {
                        measured.get(kind).add(m);
                    }
                }
            }
        } finally {
            probes.values().forEach(ScanProbe::close);
        }
        measured.forEach((kind, list) -> System.out.printf("median %-8s threads=%d records/s=%,.0f cpu/record=%.0fns (%d runs)%n",
                kind, threads, median(list, 0), median(list, 1), list.size()));
        System.exit(0);
    }

    private static double median(List<double[]> runs, int field) {
        double[] v = runs.stream().mapToDouble(m -> m[field]).sorted().toArray();
        return v[v.length / 2];
    }

    private static long gcMillis() {
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, gc.getCollectionTime());
        }
        return ms;
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (java.io.IOException e) {
            return "?";
        }
    }
}
