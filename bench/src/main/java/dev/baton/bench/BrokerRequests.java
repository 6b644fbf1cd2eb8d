package dev.baton.bench;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The requests the in-process broker has served so far, by request type, from its JMX request meters
 * ({@code kafka.network:type=RequestMetrics,name=RequestsPerSec,request=...}, summed over versions).
 * Per activity, they say how many requests the clients' batching makes the broker handle: unlike CPU
 * time this does not grow with the machine's load.
 */
record BrokerRequests(Map<String, Long> byType) {

    static BrokerRequests now() {
        Map<String, Long> byType = new TreeMap<>();
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            for (ObjectName name : server.queryNames(new ObjectName("kafka.network:type=RequestMetrics,name=RequestsPerSec,*"), null)) {
                Object count = server.getAttribute(name, "Count");
                String type = name.getKeyProperty("request");
                // FetchConsumer and FetchFollower count the Fetch requests again, by who sent them.
                if (count instanceof Number n && type != null && !type.equals("FetchConsumer") && !type.equals("FetchFollower")) {
                    byType.merge(type, n.longValue(), Long::sum);
                }
            }
        } catch (Exception e) {
            return new BrokerRequests(Map.of()); // a broker without these meters: the line says so
        }
        return new BrokerRequests(byType);
    }

    /** "Produce 0.021, Fetch 0.034, ...": requests per unit of work since {@code from}, the types above 0.001, largest first. */
    String perUnitSince(BrokerRequests from, long units) {
        if (byType.isEmpty()) {
            return "not available (no request meters)";
        }
        Map<String, Double> per = new TreeMap<>();
        byType.forEach((type, n) -> per.put(type, (double) (n - from.byType.getOrDefault(type, 0L)) / Math.max(1, units)));
        double total = per.values().stream().mapToDouble(Double::doubleValue).sum();
        return String.format("%.3f = ", total) + per.entrySet().stream().filter(e -> e.getValue() >= 0.001)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .map(e -> String.format("%s %.3f", e.getKey(), e.getValue())).collect(Collectors.joining(", "));
    }
}
