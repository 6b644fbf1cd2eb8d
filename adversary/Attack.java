import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;

import dev.baton.dispatcher.ActivityRequest;
import dev.baton.dispatcher.DispatchClient;
import dev.baton.dispatcher.ActivityOutcome;
import dev.baton.events.DeadLetter;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.SiteKey;
import dev.baton.schemas.registry.SchemaRegistry;
import dev.baton.topics.BatonTopics;
import dev.baton.worker.ActivityCompletionClient;
import dev.baton.worker.AsyncCompletion;
import dev.baton.worker.CompletionRef;
import dev.baton.worker.TerminalActivityException;
import dev.baton.worker.Worker;
import dev.baton.worker.WorkerOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Adversarial probes against a running Baton (e.g. `./baton demo --keep-running --no-faults --activities 10`),
 * run as `java -cp cli/target/baton.jar adversary/Attack.java SCENARIO BOOTSTRAP [QUEUE]`.
 * The queue (default adv) must exist: `./baton topics create --bootstrap-servers B --queue adv`.
 */
public class Attack {

    static String bs;
    static String queue = "adv";
    static final String nonce = Long.toString(System.currentTimeMillis() % 1_000_000, 36);
    static final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    static final Map<String, AsyncCompletion> handles = new ConcurrentHashMap<>();
    static final List<ActivityOutcome> unmatched = new CopyOnWriteArrayList<>();

    public static void main(String[] args) throws Exception {
        String scenario = args[0];
        bs = args[1];
        if (args.length > 2) {
            queue = args[2];
        }
        switch (scenario) {
            case "oom" -> oom(args.length > 3 ? args[3] : "dispatch");
            case "dlqforge" -> dlqForge();
            case "forgedoutcome" -> forgedOutcome();
            case "wrongpartition" -> wrongPartition();
            case "dispatch" -> dispatchOne(args[3], args[4]);
            case "ids" -> ids();
            case "deltopic" -> {
                try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(kafka())) {
                    admin.deleteTopics(List.of(args[3])).all().get();
                    System.out.println("deleted " + args[3]);
                }
            }
            case "audit" -> {
                var report = dev.baton.testkit.InvariantChecker.check(bs);
                System.out.println("audit: " + report.requests() + " requests, " + report.outcomes() + " outcomes; violations:");
                report.violations().forEach(v -> System.out.println("  " + v));
            }
            case "oomworkers" -> oomWorkers();
            case "oomarray" -> oomArray();
            default -> withWorker(scenario);
        }
        System.exit(0);
    }

    static Map<String, Object> kafka() {
        return Map.of("bootstrap.servers", bs);
    }

    static void withWorker(String scenario) throws Exception {
        Worker worker = Worker.start(WorkerOptions.builder().bootstrapServers(bs).workerId("adv-worker-" + nonce).queues(queue)
                .maxConcurrent(8)
                .handler("echo", (ctx, in) -> {
                    System.out.println("  handler 'echo' RAN for " + ctx.site() + " attempt " + ctx.attempt() + " input '" + new String(in, StandardCharsets.UTF_8) + "'");
                    return in;
                })
                .handler("big", (ctx, in) -> {
                    count(ctx.site().asKey());
                    return new byte[600_000];
                })
                .handler("later", (ctx, in) -> {
                    count(ctx.site().asKey());
                    System.out.println("  handler 'later' ran: " + ctx.site() + " attempt " + ctx.attempt() + " gen " + ctx.generation()
                            + " checkpoint=" + ctx.lastHeartbeatDetails().map(p -> p.data().length > 60 ? p.data().length + " bytes" : "'" + new String(p.data(), StandardCharsets.UTF_8) + "'").orElse("none"));
                    handles.put(ctx.site().asKey() + "#" + ctx.generation(), ctx.completeLater());
                    return null;
                })
                .handler("ckpt", (ctx, in) -> {
                    count(ctx.site().asKey());
                    System.out.println("  handler 'ckpt' attempt " + ctx.attempt() + " gen " + ctx.generation() + " resumes from "
                            + ctx.lastHeartbeatDetails().map(p -> "'" + new String(p.data(), StandardCharsets.UTF_8) + "'").orElse("nothing"));
                    if (ctx.attempt() == 1) {
                        ctx.heartbeat("progress-50%".getBytes(StandardCharsets.UTF_8));
                        throw new dev.baton.worker.RetryableActivityException("transient, retry me");
                    }
                    return "done".getBytes();
                })
                .handler("badmsg", (ctx, in) -> {
                    count(ctx.site().asKey());
                    throw new IllegalStateException() {
                        @Override
                        public String getMessage() {
                            throw new UnsupportedOperationException("getMessage refuses");
                        }
                    };
                })
                .handler("cyclic", (ctx, in) -> {
                    count(ctx.site().asKey());
                    RuntimeException a = new RuntimeException("A".repeat(1_000_000));
                    RuntimeException b = new RuntimeException("B");
                    a.initCause(b);
                    b.initCause(a);
                    throw a;
                })
                .handler("weirdterminal", (ctx, in) -> {
                    count(ctx.site().asKey());
                    throw new TerminalActivityException("T".repeat(5000), "M".repeat(100_000), new byte[200_000]);
                })
                .build());
        DispatchClient client = DispatchClient.create(Map.of("bootstrap.servers", bs, "baton.client.id", "adv-client-" + nonce), o -> {
            unmatched.add(o);
            System.out.println("  UNMATCHED handler got: " + describe(o));
        });
        Thread.sleep(3000); // let the worker join and register
        try {
            switch (scenario) {
                case "bigoutput" -> bigOutput(client);
                case "asyncbighb" -> asyncBigHeartbeat(client);
                case "asynctoken" -> asyncToken(client);
                case "asynccancel" -> asyncCancel(client);
                case "takeoverrelay" -> takeoverRelay(client);
                case "asyncbad" -> asyncBad(client);
                case "ckpt" -> {
                    long t = System.nanoTime();
                    await("ckpt (default 30 s window)", client.dispatch(ActivityRequest.builder().site("adv", "wf-" + nonce, "ckpt").queue(queue)
                            .activityType("ckpt").input("x".getBytes(), "text/plain").retry(ActivityRequest.RetryOptions.of(Duration.ofMillis(200), 3)).build()), t, 30);
                }
                case "failures" -> failures(client);
                case "serve" -> Thread.sleep(Long.parseLong(System.getProperty("serve.seconds", "60")) * 1000);
                default -> throw new IllegalArgumentException(scenario);
            }
        } finally {
            Thread.sleep(2000);
            client.close();
            worker.close();
        }
    }

    static void count(String key) {
        runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    }

    static ActivityRequest.Builder req(String type, String id) {
        return ActivityRequest.builder().site("adv", "wf-" + nonce, id).queue(queue).activityType(type)
                .input("hi".getBytes(StandardCharsets.UTF_8), "text/plain").heartbeat(Duration.ofSeconds(2));
    }

    static String describe(ActivityOutcome o) {
        return o.site() + " req=" + (o.requestId() == null ? null : o.requestId().substring(0, Math.min(8, o.requestId().length())))
                + " completed=" + o.completed() + " unmatched=" + o.unmatched() + " attempt=" + o.attempt()
                + " output=" + (o.output() == null ? null : o.output().length <= 40 ? new String(o.output(), StandardCharsets.UTF_8) : o.output().length + " bytes")
                + " reason=" + (o.reason() == null ? null : o.reason().length() > 200 ? o.reason().substring(0, 200) + "...(" + o.reason().length() + ")" : o.reason())
                + " failure=" + (o.failure() == null ? null : o.failure().type().length() + "-char type, msg " + o.failure().message().length()
                + " chars, causes " + (o.failure().chain().size() - 1) + ", details " + (o.failure().details() == null ? null : o.failure().details().data().length));
    }

    static void await(String label, CompletableFuture<ActivityOutcome> f, long startNanos, int seconds) {
        try {
            ActivityOutcome o = f.get(seconds, TimeUnit.SECONDS);
            System.out.printf("  %s: after %d ms: %s%n", label, (System.nanoTime() - startNanos) / 1_000_000, describe(o));
        } catch (java.util.concurrent.TimeoutException e) {
            System.out.printf("  %s: NO OUTCOME within %d s%n", label, seconds);
        } catch (Exception e) {
            System.out.printf("  %s: future failed: %s%n", label, e);
        }
    }

    /** A handler whose output is over max.payload.bytes (512 KiB): is its caller answered, and how often does it run? */
    static void bigOutput(DispatchClient client) {
        System.out.println("== bigoutput: handler returns 600,000 bytes (streams app max.payload.bytes 524,288), heartbeat window 2 s");
        long t = System.nanoTime();
        CompletableFuture<ActivityOutcome> f = client.dispatch(req("big", "big-1").build());
        await("big-1", f, t, 60);
        System.out.println("  handler invocations for the one request: " + runs.get(new SiteKey("adv", "wf-" + nonce, "big-1").asKey()));
    }

    /** Async completion: the holder heartbeats with details over 64 KiB, then completes. */
    static void asyncBigHeartbeat(DispatchClient client) throws Exception {
        System.out.println("== asyncbighb: completeLater(); holder heartbeats 70,000-byte details every 500 ms (futures succeed?), completes after 6 s");
        String key = new SiteKey("adv", "wf-" + nonce, "hb-1").asKey();
        long t = System.nanoTime();
        CompletableFuture<ActivityOutcome> f = client.dispatch(req("later", "hb-1").build());
        AsyncCompletion h = waitHandle(key + "#1");
        for (int i = 0; i < 12; i++) {
            try {
                h.heartbeat(new byte[70_000]).get(5, TimeUnit.SECONDS);
                if (i == 0) System.out.println("  heartbeat future completed normally (no error to the holder)");
            } catch (Exception e) {
                System.out.println("  heartbeat " + i + " failed: " + e);
            }
            Thread.sleep(500);
        }
        h.complete("done-by-holder".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
        System.out.println("  holder's complete() future succeeded");
        await("hb-1", f, t, 30);
        System.out.println("  handler invocations: " + runs.get(key));
        // Control: same with 1,000-byte details.
        String key2 = new SiteKey("adv", "wf-" + nonce, "hb-2").asKey();
        t = System.nanoTime();
        CompletableFuture<ActivityOutcome> f2 = client.dispatch(req("later", "hb-2").build());
        AsyncCompletion h2 = waitHandle(key2 + "#1");
        for (int i = 0; i < 12; i++) {
            h2.heartbeat(new byte[1000]).get(5, TimeUnit.SECONDS);
            Thread.sleep(500);
        }
        h2.complete("done-by-holder".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
        await("hb-2 (control, 1,000-byte details)", f2, t, 30);
        System.out.println("  handler invocations: " + runs.get(key2));
    }

    static AsyncCompletion waitHandle(String k) throws InterruptedException {
        for (int i = 0; i < 300 && !handles.containsKey(k); i++) {
            Thread.sleep(100);
        }
        AsyncCompletion h = handles.get(k);
        if (h == null) {
            throw new IllegalStateException("handler never ran for " + k);
        }
        return h;
    }

    /** Forged / altered completion references, twice, fail-then-complete, two processes at once. */
    static void asyncToken(DispatchClient client) throws Exception {
        try (ActivityCompletionClient cc = ActivityCompletionClient.create(kafka(), "kafka://");
             ActivityCompletionClient cc2 = ActivityCompletionClient.create(kafka(), "kafka://")) {
            String wf = "wf-" + nonce;
            // 1. altered generation, current token
            System.out.println("== altered generation: the current token, generation 1 -> 7 in the ref");
            long t = System.nanoTime();
            CompletableFuture<ActivityOutcome> f1 = client.dispatch(req("later", "gen-1").build());
            AsyncCompletion h1 = waitHandle(new SiteKey("adv", wf, "gen-1").asKey() + "#1");
            CompletionRef r = h1.ref();
            CompletionRef altered = new CompletionRef(r.site(), r.attempt(), 7, r.token());
            cc.complete(altered.render(), "by-altered-generation".getBytes(StandardCharsets.UTF_8)).get();
            await("gen-1", f1, t, 20);

            // 2. another site's token
            System.out.println("== another site's current token in a ref for this site; then a made-up 22-char token; then a 21-char one");
            t = System.nanoTime();
            CompletableFuture<ActivityOutcome> f2a = client.dispatch(req("later", "tok-a").build());
            CompletableFuture<ActivityOutcome> f2b = client.dispatch(req("later", "tok-b").build());
            AsyncCompletion ha = waitHandle(new SiteKey("adv", wf, "tok-a").asKey() + "#1");
            AsyncCompletion hb = waitHandle(new SiteKey("adv", wf, "tok-b").asKey() + "#1");
            CompletionRef forged = new CompletionRef(hb.ref().site(), 1, 1, ha.ref().token());
            cc.complete(forged.render(), "forged-other-site".getBytes(StandardCharsets.UTF_8)).get();
            cc.complete(new CompletionRef(hb.ref().site(), 1, 1, "AAAAAAAAAAAAAAAAAAAAAA").render(), "made-up".getBytes()).get();
            cc.complete(new CompletionRef(hb.ref().site(), 1, 1, "AAAAAAAAAAAAAAAAAAAAA").render(), "made-up-21".getBytes()).get();
            Thread.sleep(1500);
            System.out.println("  tok-b done before its holder completes? " + f2b.isDone());
            // keep tok-a alive and complete both properly
            ha.complete("a-ok".getBytes()).get();
            hb.complete("b-ok".getBytes()).get();
            await("tok-a", f2a, t, 20);
            await("tok-b", f2b, t, 20);

            // 3. complete twice / fail then complete / two clients at once
            System.out.println("== complete twice with different outputs; fail then complete; two clients at once");
            t = System.nanoTime();
            CompletableFuture<ActivityOutcome> f3 = client.dispatch(req("later", "twice").build());
            AsyncCompletion h3 = waitHandle(new SiteKey("adv", wf, "twice").asKey() + "#1");
            h3.complete("first".getBytes()).get();
            h3.complete("second".getBytes()).get();
            await("twice", f3, t, 20);
            CompletableFuture<ActivityOutcome> f4 = client.dispatch(req("later", "failthen").retry(ActivityRequest.RetryOptions.of(Duration.ofMillis(100), 1)).build());
            AsyncCompletion h4 = waitHandle(new SiteKey("adv", wf, "failthen").asKey() + "#1");
            h4.fail(new TerminalActivityException("boom")).get();
            h4.complete("after-fail".getBytes()).get();
            await("failthen", f4, t, 20);
            CompletableFuture<ActivityOutcome> f5 = client.dispatch(req("later", "race").build());
            AsyncCompletion h5 = waitHandle(new SiteKey("adv", wf, "race").asKey() + "#1");
            String tok = h5.token();
            CompletableFuture<Void> x = CompletableFuture.runAsync(() -> cc.complete(tok, "from-client-1".getBytes()).join());
            CompletableFuture<Void> y = CompletableFuture.runAsync(() -> cc2.complete(tok, "from-client-2".getBytes()).join());
            x.join();
            y.join();
            await("race", f5, t, 20);

            // 4. complete after the generation was lost (no heartbeat within 2 s)
            System.out.println("== complete after the handed-off generation was lost (no heartbeat for 2 s window)");
            t = System.nanoTime();
            CompletableFuture<ActivityOutcome> f6 = client.dispatch(req("later", "lost").build());
            AsyncCompletion h6 = waitHandle(new SiteKey("adv", wf, "lost").asKey() + "#1");
            h6.heartbeat("checkpoint-gen1".getBytes()).get();
            AsyncCompletion h6b = waitHandle(new SiteKey("adv", wf, "lost").asKey() + "#2");
            h6.heartbeat("stale-checkpoint-from-gen1".getBytes()).get(); // stale
            h6.complete("stale-completion".getBytes()).get();
            Thread.sleep(1000);
            System.out.println("  done after stale completion? " + f6.isDone());
            // let gen 2 be lost too: gen 3 must resume from gen 1's checkpoint, not the stale one
            AsyncCompletion h6c = waitHandle(new SiteKey("adv", wf, "lost").asKey() + "#3");
            h6b.complete("gen2-completion-after-loss".getBytes()).get();
            h6c.complete("gen3-completion".getBytes()).get();
            await("lost", f6, t, 20);
            Thread.sleep(3000);
            System.out.println("  unmatched outcomes seen: " + unmatched.size());
        }
    }

    /** Run A (attempt 1) handed off; caller B takes over at attempt 2 and completes; then A's holder completes late. */
    static void takeoverRelay(DispatchClient client) throws Exception {
        String wf = "wf-" + nonce;
        SiteKey site = new SiteKey("adv", wf, "takeover");
        long t = System.nanoTime();
        CompletableFuture<ActivityOutcome> fa = client.dispatch(req("later", "takeover").build());
        AsyncCompletion ha = waitHandle(site.asKey() + "#1");
        ha.heartbeat(null).get();
        handles.clear();
        CompletableFuture<ActivityOutcome> fb = client.dispatch(req("later", "takeover").attempt(2).build());
        await("caller A (attempt 1)", fa, t, 20);
        AsyncCompletion hb = waitHandle(site.asKey() + "#1");
        System.out.println("  run B ref: " + hb.ref());
        hb.complete("B-output".getBytes()).get();
        await("caller B (attempt 2)", fb, t, 20);
        ha.complete("A-LATE-output".getBytes()).get();
        Thread.sleep(3000);
        System.out.println("  unmatched outcomes seen: " + unmatched.size());
    }

    /** The async paths do not bound what the sync path bounds: a long reason, big failure details, a big output. */
    static void asyncBad(DispatchClient client) throws Exception {
        try (ActivityCompletionClient cc = ActivityCompletionClient.create(kafka(), "kafka://")) {
            String wf = "wf-" + nonce;
            List<CompletableFuture<ActivityOutcome>> fs = new ArrayList<>();
            long t = System.nanoTime();
            for (String id : List.of("longreason", "bigdetails", "bigasyncoutput")) {
                fs.add(client.dispatch(req("later", id).build()));
            }
            String r1 = waitHandle(new SiteKey("adv", wf, "longreason").asKey() + "#1").token();
            String r2 = waitHandle(new SiteKey("adv", wf, "bigdetails").asKey() + "#1").token();
            String r3 = waitHandle(new SiteKey("adv", wf, "bigasyncoutput").asKey() + "#1").token();
            cc.fail(r1, "terminal: " + "R".repeat(10_000), null).get();
            cc.fail(r2, "terminal: declined", new dev.baton.schemas.failure.ActivityFailure("Declined", "card declined",
                    dev.baton.schemas.payload.EncodedPayload.octetStream(new byte[100_000]), "", null)).get();
            cc.complete(r3, new byte[600_000]).get();
            System.out.println("  all three reports acknowledged by the broker (no error to the completer)");
            int i = 0;
            for (String id : List.of("longreason", "bigdetails", "bigasyncoutput")) {
                await(id, fs.get(i++), t, 40);
            }
        }
    }

    /** Cancel a handed-off activity, then complete it. */
    static void asyncCancel(DispatchClient client) throws Exception {
        String wf = "wf-" + nonce;
        long t = System.nanoTime();
        CompletableFuture<ActivityOutcome> f = client.dispatch(req("later", "cancel").build());
        SiteKey site = new SiteKey("adv", wf, "cancel");
        AsyncCompletion h = waitHandle(site.asKey() + "#1");
        h.heartbeat(null).get();
        client.cancel(site).get();
        Thread.sleep(1000);
        h.complete("after-cancel".getBytes()).get();
        await("cancel", f, t, 20);
        Thread.sleep(2000);
        System.out.println("  unmatched outcomes seen: " + unmatched.size());
    }

    static void failures(DispatchClient client) {
        for (String type : List.of("badmsg", "cyclic", "weirdterminal")) {
            System.out.println("== failure: " + type);
            long t = System.nanoTime();
            CompletableFuture<ActivityOutcome> f = client.dispatch(req(type, type).retry(ActivityRequest.RetryOptions.of(Duration.ofMillis(100), 1)).build());
            await(type, f, t, 60);
            System.out.println("  handler invocations: " + runs.get(new SiteKey("adv", "wf-" + nonce, type).asKey()));
        }
    }

    static int partitions(KafkaProducer<byte[], byte[]> p, String topic) {
        return p.partitionsFor(topic).size();
    }

    static KafkaProducer<byte[], byte[]> producer() {
        Properties props = new Properties();
        props.put("bootstrap.servers", bs);
        props.put("acks", "all");
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    static byte[] varint(long zigzagged) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long v = zigzagged;
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
        return out.toByteArray();
    }

    /**
     * A 16-byte record whose first string claims 2,147,483,639 bytes: Avro allocates the string before
     * reading it, which throws OutOfMemoryError (an Error, not an exception) in a 2 GiB heap.
     */
    static void oom(String target) throws Exception {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://", kafka()); KafkaProducer<byte[], byte[]> p = producer()) {
            String topic = target.equals("worker-events") ? BatonTopics.WORKER_EVENTS : BatonTopics.DISPATCH;
            byte[] sample = target.equals("worker-events")
                    ? EventSerde.of(WorkerEvent.class, registry).encode(topic, WorkerEvent.newBuilder().setKind(WorkerEventKind.HEARTBEAT)
                    .setSite(new SiteKey("adv", "oom", "x").toRef()).setAttempt(1).setGeneration(1).setToken("AAAAAAAAAAAAAAAAAAAAAA")
                    .setWorkerId("w").setAtMillis(0).build())
                    : EventSerde.of(DispatchCommand.class, registry).encode(topic, sampleDispatch(new SiteKey("adv", "oom", "x"), "r", "c"));
            ByteArrayOutputStream v = new ByteArrayOutputStream();
            v.write(sample, 0, 5); // magic + the real schema id
            if (target.equals("worker-events")) {
                v.write(varint(2 * 1)); // kind index 1 (whatever it is), then site.namespace
            } else {
                v.write(0); // kind REQUESTED (index 0), then site.namespace
            }
            v.write(varint(2L * 2_147_483_639L)); // zigzag length
            v.write("x".getBytes());
            String key = "adv/oom-" + nonce + "/1";
            var meta = p.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), v.toByteArray())).get();
            System.out.println("poison record (" + v.size() + " bytes) written to " + meta.topic() + "-" + meta.partition() + "@" + meta.offset()
                    + " key " + key);
        }
    }

    /** The schema id the Java serde frames baton.dispatch records with, and the schema text, to compare with REST answers. */
    static void ids() {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://", kafka())) {
            for (Class<? extends org.apache.avro.specific.SpecificRecord> c : List.of(DispatchCommand.class, WorkerEvent.class, Outcome.class)) {
                org.apache.avro.Schema schema = org.apache.avro.specific.SpecificData.get().getSchema(c);
                String topic = c == DispatchCommand.class ? BatonTopics.DISPATCH : c == WorkerEvent.class ? BatonTopics.WORKER_EVENTS : BatonTopics.RESULTS;
                System.out.println(c.getSimpleName() + " java id under " + topic + "-value: " + registry.register(topic + "-value", schema));
            }
            java.nio.file.Files.writeString(java.nio.file.Path.of("/tmp/adv-dispatch-schema.json"),
                    org.apache.avro.specific.SpecificData.get().getSchema(DispatchCommand.class).toString(true));
            System.out.println("pretty-printed DispatchCommand schema written to /tmp/adv-dispatch-schema.json");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A DispatchCommand whose retryPolicy.nonRetryableReasonPrefixes array claims 2,147,483,639 items. */
    static void oomArray() throws Exception {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://", kafka()); KafkaProducer<byte[], byte[]> p = producer()) {
            String key = "adv/oomarray-" + nonce + "/1";
            DispatchCommand cmd = sampleDispatch(SiteKey.parse(key), "oomarray-" + nonce, "adv-oom-client");
            cmd.setRetryPolicy(dev.baton.events.RetryPolicy.newBuilder().setInitialIntervalMillis(100).setBackoffCoefficient(2.0)
                    .setMaxIntervalMillis(1000).setMaxAttempts(2).setNonRetryableReasonPrefixes(List.of("QQQQQQQQ")).build());
            byte[] legit = EventSerde.of(DispatchCommand.class, registry).encode(BatonTopics.DISPATCH, cmd);
            byte[] marker = {0x02, 0x10, 'Q', 'Q', 'Q', 'Q', 'Q', 'Q', 'Q', 'Q', 0x00};
            int at = -1;
            for (int i = 0; i + marker.length <= legit.length && at < 0; i++) {
                if (java.util.Arrays.equals(java.util.Arrays.copyOfRange(legit, i, i + marker.length), marker)) {
                    at = i;
                }
            }
            ByteArrayOutputStream v = new ByteArrayOutputStream();
            v.write(legit, 0, at);
            v.write(varint(2L * 2_147_483_639L));
            v.write(legit, at + 1, legit.length - at - 1);
            var meta = p.send(new ProducerRecord<>(BatonTopics.DISPATCH, key.getBytes(StandardCharsets.UTF_8), v.toByteArray())).get();
            System.out.println("poison record (" + v.size() + " bytes) written to " + meta.topic() + "-" + meta.partition() + "@" + meta.offset() + " key " + key);
        }
    }

    /** A WorkerStatus on the compacted baton.workers topic whose first string claims 2,147,483,639 bytes. */
    static void oomWorkers() throws Exception {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://", kafka()); KafkaProducer<byte[], byte[]> p = producer()) {
            int id = registry.register(BatonTopics.WORKERS + "-value", org.apache.avro.specific.SpecificData.get().getSchema(dev.baton.events.WorkerStatus.class));
            ByteArrayOutputStream v = new ByteArrayOutputStream();
            v.write(0);
            v.write(ByteBuffer.allocate(4).putInt(id).array());
            v.write(varint(2L * 2_147_483_639L)); // the first field, if a string (workerId)
            v.write("x".getBytes());
            var meta = p.send(new ProducerRecord<>(BatonTopics.WORKERS, ("adv-poison-" + nonce).getBytes(), v.toByteArray())).get();
            System.out.println("poison WorkerStatus written to " + meta.topic() + "-" + meta.partition() + "@" + meta.offset());
        }
    }

    static DispatchCommand sampleDispatch(SiteKey site, String requestId, String replyKey) {
        return DispatchCommand.newBuilder().setKind(DispatchKind.REQUESTED).setSite(site.toRef()).setRequestId(requestId).setReplyKey(replyKey)
                .setAttempt(1).setRunId("").setIdempotencyKey("idem-" + requestId).setQueue(queue).setActivityType("echo")
                .setInput(new Payload(ByteBuffer.wrap("hi".getBytes()), "text/plain")).setRequestedAtMillis(System.currentTimeMillis()).build();
    }

    /** Dispatch one activity to SITEKEY with type TYPE and print its outcome (used to probe a stuck partition). */
    static void dispatchOne(String siteKey, String type) throws Exception {
        try (DispatchClient client = DispatchClient.create(Map.of("bootstrap.servers", bs, "baton.client.id", "adv-probe-" + nonce),
                o -> System.out.println("  UNMATCHED: " + describe(o)))) {
            try (KafkaProducer<byte[], byte[]> p = producer()) {
                System.out.println("  " + siteKey + " maps to partition " + BatonTopics.keyPartition(siteKey, partitions(p, BatonTopics.DISPATCH)));
            }
            long t = System.nanoTime();
            await(siteKey, client.dispatch(ActivityRequest.builder().site(SiteKey.parse(siteKey)).queue(queue).activityType(type)
                    .input("probe".getBytes(), "text/plain").build()), t, 40);
        }
    }

    /**
     * A dead letter is written by any role (workers have WRITE on baton.dlq). Forge one whose source
     * topic is a task topic, then an operator's `dlq replay` publishes it with the operator's rights.
     */
    static void dlqForge() throws Exception {
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://", kafka()); KafkaProducer<byte[], byte[]> p = producer()) {
            EventSerde<dev.baton.events.ActivityTask> taskSerde = EventSerde.of(dev.baton.events.ActivityTask.class, registry);
            SiteKey site = new SiteKey("adv", "forged-" + nonce, "task");
            String taskTopic = BatonTopics.TASKS_PREFIX + queue;
            dev.baton.events.ActivityTask task = dev.baton.events.ActivityTask.newBuilder().setSite(site.toRef()).setAttempt(1).setGeneration(1)
                    .setToken("AAAAAAAAAAAAAAAAAAAAAA").setIdempotencyKey("forged").setQueue(queue).setActivityType("echo")
                    .setInput(new Payload(ByteBuffer.wrap("FORGED INPUT, never dispatched".getBytes()), "text/plain"))
                    .setScheduledAtMillis(System.currentTimeMillis()).setDeadlineMillis(null).build();
            byte[] value = taskSerde.encode(taskTopic, task);
            DeadLetter letter = DeadLetter.newBuilder().setSourceTopic(taskTopic).setSourcePartition(0).setSourceOffset(0)
                    .setKey(ByteBuffer.wrap(site.toBytes())).setValue(ByteBuffer.wrap(value))
                    .setReason("wrong partition: written to partition 0 of baton.dispatch (forged by a worker principal)")
                    .setProcess("streams-app 0_0").setAtMillis(System.currentTimeMillis()).build();
            var meta = p.send(new ProducerRecord<>(BatonTopics.DLQ, site.toBytes(), EventSerde.of(DeadLetter.class, registry).encode(BatonTopics.DLQ, letter))).get();
            System.out.println("forged dead letter (source " + taskTopic + "/0) at " + meta.topic() + "-" + meta.partition() + "@" + meta.offset());
        }
    }

    /**
     * Forge an ActivityOutcome for a pending request of a victim client (request id read from baton.dispatch) and
     * wrap it in a dead letter whose source topic is baton.results; `dlq replay` then delivers it.
     */
    static void forgedOutcome() throws Exception {
        String victimId = "adv-victim-" + nonce;
        DispatchClient victim = DispatchClient.create(Map.of("bootstrap.servers", bs, "baton.client.id", victimId),
                o -> System.out.println("  victim UNMATCHED: " + describe(o)));
        // no worker serves queue 'adv' in this scenario, so the request stays pending
        SiteKey site = new SiteKey("adv", "victim-" + nonce, "charge");
        CompletableFuture<ActivityOutcome> f = victim.dispatch(ActivityRequest.builder().site(site).queue(queue).activityType("echo")
                .input("real input".getBytes(), "text/plain").build());
        Thread.sleep(2000);
        String requestId = null;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bs), new ByteArrayDeserializer(), new ByteArrayDeserializer());
             SchemaRegistry registry = SchemaRegistry.forUrl("kafka://", kafka())) {
            EventSerde<DispatchCommand> ds = EventSerde.of(DispatchCommand.class, registry);
            List<TopicPartition> tps = new ArrayList<>();
            c.partitionsFor(BatonTopics.DISPATCH).forEach(pi -> tps.add(new TopicPartition(pi.topic(), pi.partition())));
            c.assign(tps);
            c.seekToBeginning(tps);
            long until = System.currentTimeMillis() + 10_000;
            while (requestId == null && System.currentTimeMillis() < until) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    try {
                        DispatchCommand cmd = ds.decode(r);
                        if (cmd != null && victimId.equals(cmd.getReplyKey())) {
                            requestId = cmd.getRequestId();
                        }
                    } catch (RuntimeException ignored) {
                    }
                }
            }
            System.out.println("victim's pending request id: " + requestId);
            Outcome forged = Outcome.newBuilder().setStatus(OutcomeStatus.COMPLETED).setSite(site.toRef())
                    .setRequestId(requestId).setReplyKey(victimId).setAttempt(1)
                    .setOutput(new Payload(ByteBuffer.wrap("FORGED OUTPUT".getBytes()), "text/plain")).setUnmatched(false)
                    .setWorkerId("streams-app").setAtMillis(System.currentTimeMillis()).build();
            int results;
            try (KafkaProducer<byte[], byte[]> p = producer()) {
                results = partitions(p, BatonTopics.RESULTS);
                byte[] value = EventSerde.of(Outcome.class, registry).encode(BatonTopics.RESULTS, forged);
                DeadLetter letter = DeadLetter.newBuilder().setSourceTopic(BatonTopics.RESULTS)
                        .setSourcePartition(BatonTopics.keyPartition(victimId, results)).setSourceOffset(0)
                        .setKey(ByteBuffer.wrap(victimId.getBytes(StandardCharsets.UTF_8))).setValue(ByteBuffer.wrap(value))
                        .setReason("wrong partition: forged").setProcess("streams-app 0_0").setAtMillis(System.currentTimeMillis()).build();
                var meta = p.send(new ProducerRecord<>(BatonTopics.DLQ, victimId.getBytes(), EventSerde.of(DeadLetter.class, registry).encode(BatonTopics.DLQ, letter))).get();
                System.out.println("forged dead letter at " + meta.topic() + "-" + meta.partition() + "@" + meta.offset()
                        + "; now run: ./baton dlq replay --bootstrap-servers " + bs + " --dlq-offset " + meta.partition() + ":" + meta.offset());
            }
        }
        long t = System.nanoTime();
        await("victim's dispatch", f, t, 120);
        victim.close();
    }

    /** Produce with librdkafka's default partitioner (CRC32): a REQUESTED, a CANCEL and a worker event. */
    static void wrongPartition() throws Exception {
        String replyKey = "adv-wp-" + nonce;
        DispatchClient client = DispatchClient.create(Map.of("bootstrap.servers", bs, "baton.client.id", replyKey),
                o -> System.out.println("  UNMATCHED handler (the misrouted caller's answer): " + describe(o)));
        try (SchemaRegistry registry = SchemaRegistry.forUrl("kafka://", kafka()); KafkaProducer<byte[], byte[]> p = producer()) {
            int n = partitions(p, BatonTopics.DISPATCH);
            for (int i = 0; i < 50; i++) {
                SiteKey site = new SiteKey("adv", "wp-" + nonce, "a" + i);
                byte[] key = site.toBytes();
                CRC32 crc = new CRC32();
                crc.update(key);
                int crcPart = (int) (crc.getValue() % n);
                int right = BatonTopics.keyPartition(site.asKey(), n);
                if (crcPart == right) {
                    continue;
                }
                EventSerde<DispatchCommand> ds = EventSerde.of(DispatchCommand.class, registry);
                p.send(new ProducerRecord<>(BatonTopics.DISPATCH, crcPart, key, ds.encode(BatonTopics.DISPATCH, sampleDispatch(site, "wp-req-" + nonce, replyKey)))).get();
                DispatchCommand cancel = sampleDispatch(site, "wp-cancel-" + nonce, replyKey);
                cancel.setKind(DispatchKind.CANCEL);
                p.send(new ProducerRecord<>(BatonTopics.DISPATCH, crcPart, key, ds.encode(BatonTopics.DISPATCH, cancel))).get();
                WorkerEvent ev = WorkerEvent.newBuilder().setKind(WorkerEventKind.COMPLETED).setSite(site.toRef()).setAttempt(1).setGeneration(1)
                        .setToken("AAAAAAAAAAAAAAAAAAAAAA").setWorkerId("adv").setOutput(new Payload(ByteBuffer.wrap(new byte[0]), "x")).setAtMillis(0).build();
                p.send(new ProducerRecord<>(BatonTopics.WORKER_EVENTS, crcPart, key, EventSerde.of(WorkerEvent.class, registry).encode(BatonTopics.WORKER_EVENTS, ev))).get();
                System.out.println("sent REQUESTED, CANCEL, COMPLETED for " + site + " to partition " + crcPart + " (belongs on " + right + ")");
                break;
            }
        }
        Thread.sleep(8000);
        client.close();
    }
}
