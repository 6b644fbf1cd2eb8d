package dev.baton.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The soak's worker processes: those alive, oldest first, and the spec of every worker ever started
 * (an outcome names the worker that produced it, perhaps one long killed). A killed worker is
 * replaced by a fresh process with the same spec, so the mix of queues and labels stays the same.
 * Thread-safe: the fault schedule replaces workers while the workload checks outcomes.
 */
public final class WorkerRoster implements AutoCloseable {

    private final String bootstrap;
    private final String idPrefix;
    private final long drainTimeoutMs;
    private final List<String> extraConfig;
    private final List<BatonProcess> alive = new ArrayList<>();
    private final Map<String, WorkerSpec> specs = new ConcurrentHashMap<>();
    private int serial;

    public WorkerRoster(String bootstrap, String idPrefix, long drainTimeoutMs) {
        this(bootstrap, idPrefix, drainTimeoutMs, List.of());
    }

    /** As {@link #WorkerRoster(String, String, long)}, with more {@code key=value} lines in each worker's config file. */
    public WorkerRoster(String bootstrap, String idPrefix, long drainTimeoutMs, List<String> extraConfig) {
        this.bootstrap = bootstrap;
        this.idPrefix = idPrefix;
        this.drainTimeoutMs = drainTimeoutMs;
        this.extraConfig = List.copyOf(extraConfig);
    }

    /** Starts a worker process with the next id and waits until it serves. */
    public BatonProcess start(WorkerSpec spec) {
        String id;
        synchronized (this) {
            id = idPrefix + (++serial);
        }
        specs.put(id, spec);
        BatonProcess p = BatonProcess.worker(bootstrap, id, spec, drainTimeoutMs, extraConfig);
        synchronized (this) {
            alive.add(p);
        }
        return p;
    }

    /**
     * Starts a worker process for each spec at once ({@link BatonProcess#startAll}) and waits until they all serve;
     * their ids, and their age for {@link #killOldest()}, follow the order of {@code specs}.
     */
    public List<BatonProcess> startAll(List<WorkerSpec> specs) {
        List<String> ids = new ArrayList<>();
        synchronized (this) {
            specs.forEach(spec -> ids.add(idPrefix + (++serial)));
        }
        List<Supplier<BatonProcess>> starts = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            String id = ids.get(i);
            WorkerSpec spec = specs.get(i);
            this.specs.put(id, spec);
            starts.add(() -> BatonProcess.worker(bootstrap, id, spec, drainTimeoutMs, extraConfig));
        }
        List<BatonProcess> started = BatonProcess.startAll(starts);
        synchronized (this) {
            alive.addAll(started);
        }
        return started;
    }

    /** {@code kill -9} of the oldest worker; returns it (dead) so its name can be logged. */
    public BatonProcess killOldest() {
        BatonProcess victim;
        synchronized (this) {
            victim = alive.remove(0);
        }
        victim.kill9();
        return victim;
    }

    /** The spec a worker was started with, or null if this roster never started it. */
    public WorkerSpec specOf(String workerId) {
        return workerId == null ? null : specs.get(workerId);
    }

    public synchronized int size() {
        return alive.size();
    }

    public synchronized List<BatonProcess> alive() {
        return List.copyOf(alive);
    }

    /** {@code kill -9} of every worker alive. */
    public void killAll() {
        alive().forEach(BatonProcess::kill9);
    }

    @Override
    public void close() {
        alive().forEach(BatonProcess::close);
    }
}
