import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import dev.baton.dispatcher.*;
import dev.baton.schemas.SiteKey;
import dev.baton.worker.*;

/** Issue 29 probes: java -cp cli/target/baton.jar Attack29.java SCENARIO BOOTSTRAP ... */
public class Attack29 {
    public static void main(String[] a) throws Exception {
        String bs = a[1];
        switch (a[0]) {
            case "worker" -> {
                String id = a[2];
                Path log = Path.of("/tmp/adv29/runs.log");
                Worker w = Worker.start(WorkerOptions.builder().bootstrapServers(bs).workerId(id).queues("adv").maxConcurrent(Integer.parseInt(a[3]))
                        .leaseMode(LeaseMode.PLAIN)
                        .handler("sleep", (ctx, in) -> {
                            String line = id + " " + ctx.site().asKey() + " a" + ctx.attempt() + " g" + ctx.generation() + "\n";
                            synchronized (Attack29.class) { Files.writeString(log, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND); }
                            Thread.sleep(Long.parseLong(new String(in, StandardCharsets.UTF_8)));
                            return ("done by " + id).getBytes();
                        }).build());
                System.out.println("worker " + id + " up");
                Thread.sleep(Long.MAX_VALUE);
            }
            case "load" -> {
                String tag = a[2];
                int n = Integer.parseInt(a[3]);
                String ms = a[4];
                int waitS = Integer.parseInt(a[5]);
                int rate = a.length > 6 ? Integer.parseInt(a[6]) : 1000;
                List<String> unmatched = new CopyOnWriteArrayList<>();
                try (DispatchClient c = DispatchClient.create(Map.of("bootstrap.servers", bs, "baton.client.id", "adv29-" + tag),
                        o -> unmatched.add(o.toString()))) {
                    Map<String, CompletableFuture<ActivityOutcome>> fs = new LinkedHashMap<>();
                    for (int i = 0; i < n; i++) {
                        String site = "adv29/" + tag + "/a" + i;
                        fs.put(site, c.dispatch(ActivityRequest.builder().site(SiteKey.parse(site)).queue("adv").activityType("sleep")
                                .input(ms.getBytes(), "text/plain").build()));
                        if (rate < 1000) Thread.sleep(1000 / rate);
                    }
                    long end = System.currentTimeMillis() + waitS * 1000L;
                    Map<String, Integer> byStatus = new TreeMap<>();
                    List<String> missing = new ArrayList<>();
                    for (var e : fs.entrySet()) {
                        try {
                            ActivityOutcome o = e.getValue().get(Math.max(1, end - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
                            String k = o.completed() ? "ok a" + o.attempt() : "failed " + o.reasonPrefix();
                            byStatus.merge(k, 1, Integer::sum);
                        } catch (TimeoutException t) {
                            missing.add(e.getKey());
                        }
                    }
                    System.out.println("load " + tag + ": " + n + " sent; outcomes " + byStatus + "; unanswered " + missing.size() + " " + missing.stream().limit(10).toList());
                    System.out.println("unmatched (different copies reaching the outbox): " + unmatched.size());
                    unmatched.stream().limit(5).forEach(u -> System.out.println("  " + u));
                }
            }
            case "replay" -> {
                // Hostile worker: every worker event of the tagged sites sent again as is (old tokens, old generations,
                // LEASED after the completion), and each completion once more with a forged output.
                String tag = a[2];
                Map<String, Object> k = Map.of("bootstrap.servers", bs);
                try (var registry = dev.baton.schemas.registry.SchemaRegistry.forUrl("kafka://", k);
                     var cons = new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(Map.of("bootstrap.servers", bs, "group.id", "adv29-replay-" + System.nanoTime(),
                             "auto.offset.reset", "earliest", "enable.auto.commit", "false"), new org.apache.kafka.common.serialization.ByteArrayDeserializer(), new org.apache.kafka.common.serialization.ByteArrayDeserializer());
                     var prod = new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(Map.of("bootstrap.servers", bs), new org.apache.kafka.common.serialization.ByteArraySerializer(), new org.apache.kafka.common.serialization.ByteArraySerializer())) {
                    var serde = dev.baton.schemas.EventSerde.of(dev.baton.events.WorkerEvent.class, registry);
                    cons.subscribe(List.of(dev.baton.topics.BatonTopics.WORKER_EVENTS));
                    List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> picked = new ArrayList<>();
                    long end = System.currentTimeMillis() + 15_000;
                    while (System.currentTimeMillis() < end) {
                        for (var r : cons.poll(Duration.ofMillis(500))) {
                            if (r.headers().lastHeader("baton.deadline") != null) continue;
                            try {
                                var ev = serde.decode(dev.baton.topics.BatonTopics.WORKER_EVENTS, r.value());
                                if (ev.getSite().getWorkflowId().contains(tag)) picked.add(r);
                            } catch (RuntimeException ex) { }
                        }
                    }
                    Map<String, Integer> kinds = new TreeMap<>();
                    Collections.reverse(picked); // completions before their leases
                    for (var r : picked) {
                        var ev = serde.decode(dev.baton.topics.BatonTopics.WORKER_EVENTS, r.value());
                        kinds.merge(ev.getKind().toString(), 1, Integer::sum);
                        prod.send(new org.apache.kafka.clients.producer.ProducerRecord<>(r.topic(), r.key(), r.value()));
                        if (ev.getKind() == dev.baton.events.WorkerEventKind.COMPLETED) {
                            ev.setOutput(new dev.baton.events.Payload(java.nio.ByteBuffer.wrap("FORGED".getBytes()), "text/plain"));
                            ev.setWorkerId("hostile");
                            prod.send(new org.apache.kafka.clients.producer.ProducerRecord<>(r.topic(), r.key(), serde.encode(r.topic(), ev)));
                            kinds.merge("COMPLETED-forged-output", 1, Integer::sum);
                        }
                    }
                    prod.flush();
                    System.out.println("replayed (newest first) " + kinds);
                }
            }
            case "audit" -> {
                var report = dev.baton.testkit.InvariantChecker.check(bs);
                System.out.println("audit: " + report.requests() + " requests, " + report.outcomes() + " outcomes; violations: " + report.violations().size());
                report.violations().stream().limit(20).forEach(v -> System.out.println("  " + v));
            }
            default -> throw new IllegalArgumentException(a[0]);
        }
        System.exit(0);
    }
}
