'use strict';
// A reference client of Baton's wire protocol (docs/protocol.md) in Node.js: a dispatcher that
// sends DispatchCommands (and cancels) and matches Outcomes, and a worker that leases tasks (in a
// Kafka transaction, or plainly for an at-least-once streams app), runs handlers within its
// capacity, heartbeats with checkpoints, obeys stops and drains without costing a retry.

const crypto = require('crypto');
const { Partitioners } = require('kafkajs');
const { Serde } = require('./schemas');

const TOPICS = {
  dispatch: 'baton.dispatch',
  workerEvents: 'baton.worker-events',
  results: 'baton.results',
  workers: 'baton.workers',
  workerControl: 'baton.worker-control',
  dlq: 'baton.dlq',
  tasks: (queue) => 'baton.tasks.' + queue,
};

/** Section 4: ids longer than this are refused by the streams app (and a site key's parts too). */
const MAX_ID_CHARS = 256;

/** Client misuse fails here, naming the bound, instead of being answered 'terminal: invalid dispatch' after a round trip. */
function requireId(what, value, { empty = false } = {}) {
  if (typeof value !== 'string' || (!empty && value.length === 0) || value.length > MAX_ID_CHARS) {
    const was = typeof value === 'string' ? `${value.length} characters` : String(value);
    throw new Error(`${what} must be a ${empty ? '' : 'non-empty '}string of at most ${MAX_ID_CHARS} characters, was ${was}`);
  }
}

/** Section 5's bounds, as the Java client's ActivityRequest checks them. */
const QUEUE = /^[A-Za-z0-9_-]{1,100}$/;
const ACTIVITY_TYPE = /^[A-Za-z0-9_.$-]{1,200}$/;
/** The streams app's default max.payload.bytes (512 KiB), which the Java client enforces too. */
const MAX_PAYLOAD_BYTES = 524_288;

/**
 * DESIGN section 6: bad input fails fast naming the constraint and the value, and nothing reaches the
 * topic (adv23c: attempt 0, a queue nobody can serve or an oversized input used to be sent).
 */
function requireRequest({ queue, activityType, attempt, input, node }, maxPayloadBytes) {
  if (!Number.isSafeInteger(attempt) || attempt < 1 || attempt > 2147483647) {
    throw new Error(`attempt must be an integer >= 1, was ${attempt}`);
  }
  if (typeof queue !== 'string' || !QUEUE.test(queue)) {
    throw new Error(`queue must match ${QUEUE.source}, was '${queue}'`);
  }
  if (typeof activityType !== 'string' || !ACTIVITY_TYPE.test(activityType)) {
    throw new Error(`activityType must match ${ACTIVITY_TYPE.source}, was '${activityType}'`);
  }
  if (node != null && (typeof node !== 'string' || !QUEUE.test(node))) {
    throw new Error(`node must match ${QUEUE.source}, was '${node}'`);
  }
  const size = Buffer.byteLength(input === undefined ? '' : input);
  if (size > maxPayloadBytes) {
    throw new Error(`input must be <= max.payload.bytes ${maxPayloadBytes}, was ${size}`);
  }
}

/** Section 4: each part with % then / percent-encoded, joined by /. */
function siteKey(site) {
  requireId('site.namespace', site.namespace);
  requireId('site.workflowId', site.workflowId);
  requireId('site.activityId', site.activityId);
  const escape = (part) => part.replace(/%/g, '%25').replace(/\//g, '%2F');
  return [site.namespace, site.workflowId, site.activityId].map(escape).join('/');
}

/** Section 5: stable per (site, runId); '#' escaped in both parts (and '%' in the run id) so the one '#' left splits them. */
function idempotencyKey(key, runId) {
  const name = key.replaceAll('#', '%23') + '#' + runId.replaceAll('%', '%25').replaceAll('#', '%23');
  return crypto.createHash('sha256').update(name).digest('hex');
}

// Section 2: kafkajs 2.x's default partitioner is Java's (murmur2 of the key bytes): name it, so
// nobody swaps in the legacy one, which puts keys on partitions no stream task owns.
function producer(kafka, options = {}) {
  return kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: true, maxInFlightRequests: 1, ...options });
}

/** Sends activities to baton.dispatch and resolves each with its Outcome from baton.results. */
class Dispatcher {
  /**
   * `unmatched(outcome)` receives the results addressed to this client that answer no waiting request: requests sent
   * before a restart, fire-and-forget sends, relays flagged `unmatched` (the outbox), as the Java client's
   * UnmatchedResultHandler does. An identical copy of an outcome delivered already is dropped.
   */
  constructor({ kafka, registry, types, clientId, maxPayloadBytes = MAX_PAYLOAD_BYTES, unmatched = () => {}, clientIdWaitMs = 60_000 }) {
    this.kafka = kafka;
    this.unmatched = unmatched;
    /** requestId -> identity of the outcome delivered for it, the oldest forgotten first (Java's DeliveredOutcomes). */
    this.delivered = new Map();
    this.maxPayloadBytes = maxPayloadBytes;
    this.types = types;
    requireId('clientId', clientId);
    this.clientId = clientId;
    this.groupId = 'baton-dispatcher-' + clientId;
    this.clientIdWaitMs = clientIdWaitMs;
    this.serde = new Serde(registry);
    this.pending = new Map();
    this.producer = producer(kafka);
    // The group commits its position, so a restarted client resumes where it stopped.
    this.consumer = kafka.consumer({ groupId: this.groupId });
  }

  async start() {
    await this.requireIdFree();
    await this.producer.connect();
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: TOPICS.results, fromBeginning: true });
    const joined = new Promise((resolve) => this.consumer.on(this.consumer.events.GROUP_JOIN, resolve));
    await this.consumer.run({ eachMessage: ({ message }) => this.onResult(message) });
    await joined;
  }

  /**
   * One live client per client id, as the Java client's ClientIdInUseException: a second member of the group would take
   * some of baton.results' partitions, and with them, maybe, the outcomes the first waits for. kafkajs has neither static
   * membership nor the consumer group protocol, the Java client's fence, so this checks before joining that the group
   * has no member, waiting up to `clientIdWaitMs` (a killed client stays a member until its session ends). A check, not
   * a lock: two clients started at the same moment can both pass.
   */
  async requireIdFree() {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const deadline = Date.now() + this.clientIdWaitMs;
      for (;;) {
        const { groups } = await admin.describeGroups([this.groupId]);
        const members = (groups[0] && groups[0].members) || [];
        if (members.length === 0) {
          return;
        }
        if (Date.now() >= deadline) {
          const m = members[0];
          throw new Error(`clientId must be unique among live clients; '${this.clientId}' is held by another live client `
            + `(member ${m.memberId} of group ${this.groupId}, host ${m.clientHost}), after waiting ${this.clientIdWaitMs} ms `
            + '(clientIdWaitMs). Give this client another clientId, or close the other one first. If the other was killed, '
            + 'the broker ends its membership after its session timeout: start this client again then');
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(1000, Math.max(0, deadline - Date.now()))));
      }
    } finally {
      await admin.disconnect();
    }
  }

  async onResult(message) {
    // Results are keyed by the caller's client id: keep only ours, and only requests we wait for.
    if (!message.key || message.key.toString() !== this.clientId) {
      return;
    }
    let outcome;
    try {
      outcome = await this.serde.decode(message.value, this.types.Outcome);
    } catch (e) {
      if (e.retriable) {
        throw e; // the registry is out of reach, the record is not at fault: kafkajs delivers it again
      }
      // Logged and skipped, as the Java client's ResultListener does: a rejection would make kafkajs deliver the record
      // again and again, holding back every later outcome of the partition (h/adv34: a failure nested 200,000 causes deep
      // overflowed avsc's stack).
      console.error(`client ${this.clientId}: skipping an undecodable result at offset ${message.offset}: ${e}`);
      return;
    }
    if (!outcome.unmatched && this.isCopy(outcome)) {
      return; // delivered already (section 9: at-least-once may repeat an outcome)
    }
    const waiting = outcome.unmatched ? undefined : this.pending.get(outcome.requestId);
    if (waiting) {
      this.pending.delete(outcome.requestId);
      waiting(outcome);
      return;
    }
    try {
      this.unmatched(outcome);
    } catch (e) {
      console.error(`client ${this.clientId}: the unmatched handler threw on request ${outcome.requestId}: ${e}`);
    }
  }

  /** Whether an identical outcome (site, attempt, status, reason, output) was delivered for this request id; records it if not. */
  isCopy(outcome) {
    const s = outcome.site;
    const identity = JSON.stringify([s.namespace, s.workflowId, s.activityId, outcome.attempt, outcome.status, outcome.reason,
      outcome.output ? crypto.createHash('sha256').update(outcome.output.data).digest('hex') : null]);
    const previous = this.delivered.get(outcome.requestId);
    if (previous !== undefined) {
      return previous === identity; // a different outcome is no copy: the handler sees it
    }
    this.delivered.set(outcome.requestId, identity);
    if (this.delivered.size > 65536) {
      this.delivered.delete(this.delivered.keys().next().value);
    }
    return false;
  }

  /** Section 5. Resolves with the Outcome record (status COMPLETED with output, or FAILED with reason). */
  async dispatch({ site, queue, activityType, input, contentType = 'application/json', attempt = 1, runId = '' }) {
    if (this.closed) {
      throw new Error(`client ${this.clientId} is closed`);
    }
    requireId('runId', runId, { empty: true });
    requireId('contentType', contentType);
    requireRequest({ queue, activityType, attempt, input }, this.maxPayloadBytes);
    const requestId = crypto.randomUUID();
    const key = siteKey(site);
    const command = {
      kind: 'REQUESTED', site, requestId, replyKey: this.clientId, attempt, runId,
      // Stable per (site, runId) across attempts: any stable string works (section 5).
      idempotencyKey: idempotencyKey(key, runId),
      queue, activityType, node: null,
      input: { data: Buffer.from(input), contentType },
      retryPolicy: null, timeouts: null, requestedAtMillis: Date.now(),
    };
    const answered = new Promise((resolve, reject) => {
      resolve.reject = reject; // close() fails what still waits
      this.pending.set(requestId, resolve);
    });
    try {
      const value = await this.serde.encode(TOPICS.dispatch, this.types.DispatchCommand, command);
      await this.producer.send({ topic: TOPICS.dispatch, acks: -1, messages: [{ key, value }] });
    } catch (e) {
      this.pending.delete(requestId); // the caller gets the error; nothing would ever resolve the entry
      throw e;
    }
    return answered;
  }

  /**
   * Section 5: cancels whatever attempt of the site is live. Its callers get `cancelled: ...`; the
   * worker running it is told to stop. A cancel of nothing live is answered to nobody.
   */
  async cancel(site) {
    const command = {
      kind: 'CANCEL', site, requestId: crypto.randomUUID(), replyKey: this.clientId, attempt: 1, runId: '', idempotencyKey: '',
      queue: '', activityType: '', node: null, input: null, retryPolicy: null, timeouts: null, requestedAtMillis: Date.now(),
    };
    const value = await this.serde.encode(TOPICS.dispatch, this.types.DispatchCommand, command);
    await this.producer.send({ topic: TOPICS.dispatch, acks: -1, messages: [{ key: siteKey(site), value }] });
  }

  /**
   * Stops reading results and fails every dispatch still waiting, as the Java client does: the activities keep running,
   * and their outcomes reach the `unmatched` handler of the next client with this id.
   */
  async close() {
    this.closed = true;
    await this.consumer.disconnect();
    await this.producer.disconnect();
    for (const [requestId, waiting] of this.pending) {
      if (waiting.reject) {
        waiting.reject(new Error(`client ${this.clientId} closed before the outcome of request ${requestId} arrived; `
          + 'it will reach the unmatched handler of the next client with this id'));
      }
    }
    this.pending.clear();
  }
}

/** Section 6, Stops: URL-safe base64 (no padding) of the first 16 bytes of SHA-256 of the token. */
function tokenFingerprint(token) {
  return crypto.createHash('sha256').update(Buffer.from(token, 'ascii')).digest().subarray(0, 16).toString('base64url');
}

/** How many of these leasable messages hold a task to run. */
function runnable(pending) {
  return pending.filter((p) => p.task).length;
}

/** A FAILED report's reason and structured failure for what a handler threw (sections 6 and 11). */
function failureOf(e) {
  const message = String(e && e.message !== undefined ? e.message : e);
  const reason = /^(retryable|terminal):/.test(message) ? message : 'retryable: ' + message;
  const failure = {
    type: (e && (e.failureType || (e.constructor && e.constructor.name))) || 'Error',
    message, details: null, stack: String((e && e.stack) || '').substring(0, 8192), cause: null,
  };
  return { reason, failure };
}

/**
 * Serves one queue with at most `capacity` handlers running at once. Each batch is leased before its
 * handlers start (section 6): in `transactional` lease mode (the default, for an exactly-once streams
 * app) the batch's LEASED events and offsets commit in one transaction; in `plain` mode (for an
 * at-least-once streams app) LEASED goes out on the report producer, the handlers start at once, and
 * the offsets are committed once every LEASED is acknowledged. A handler is
 * `async (input: Buffer, task, ctx) => {data, contentType}`; `ctx.signal` aborts when the streams
 * app stops the execution or a drain gives it back, `ctx.heartbeat(details, contentType)` records a
 * checkpoint, and `task.lastHeartbeatDetails` is the checkpoint an earlier generation or attempt left.
 */
class Worker {
  constructor({ kafka, registry, types, workerId, queue, handler, capacity = 8, leaseMode = 'transactional' }) {
    if (!['transactional', 'plain'].includes(leaseMode)) {
      throw new Error(`leaseMode must be 'transactional' or 'plain', got '${leaseMode}'`);
    }
    if (!(Number.isInteger(capacity) && capacity >= 1)) {
      throw new Error(`capacity must be an integer >= 1, got ${capacity}`);
    }
    this.kafka = kafka;
    this.types = types;
    this.workerId = workerId;
    this.queue = queue;
    this.handler = handler;
    this.capacity = capacity;
    this.leaseMode = leaseMode;
    this.serde = new Serde(registry);
    this.groupId = 'baton-worker-' + queue;
    this.startedAt = Date.now();
    this.draining = false;
    /** Token fingerprint -> the running execution ({task, controller, done}). */
    this.executions = new Map();
    this.slotFreed = () => {};
    this.leases = leaseMode === 'transactional' ? producer(kafka, { transactionalId: `baton-worker.${queue}.${workerId}` }) : null;
    this.reports = producer(kafka);
    this.consumer = kafka.consumer({ groupId: this.groupId });
    // Stops: read from the end at start (section 6). kafkajs has no manual assignment, so this reads
    // every partition of baton.worker-control in a group of its own, commits nothing (a restart starts
    // at the end again), and keeps the records keyed by this worker's id.
    this.control = kafka.consumer({ groupId: `baton-worker-control.${workerId}.${crypto.randomUUID()}` });
  }

  get inFlight() {
    return this.executions.size;
  }

  async start() {
    await Promise.all([this.leases && this.leases.connect(), this.reports.connect(), this.consumer.connect(), this.control.connect()]);
    await this.control.subscribe({ topic: TOPICS.workerControl, fromBeginning: false });
    await this.consumer.subscribe({ topic: TOPICS.tasks(this.queue), fromBeginning: true });
    // Stops must be read before a task runs: resolve once the control consumer holds its partitions.
    const controlJoined = new Promise((resolve) => this.control.on(this.control.events.GROUP_JOIN, resolve));
    await this.control.run({ autoCommit: false, eachMessage: ({ message }) => this.onControl(message) });
    await Promise.all([controlJoined, this.register()]);
    this.registration = setInterval(() => this.register().catch(() => {}), 3000);
    await this.consumer.run({ autoCommit: false, eachBatch: (batch) => this.onBatch(batch) });
  }

  async onControl(message) {
    if (!message.key || message.key.toString() !== this.workerId || !message.value) {
      return;
    }
    const control = await this.serde.decode(message.value, this.types.WorkerControl);
    const execution = control.kind === 'STOP' && control.tokenFingerprint ? this.executions.get(control.tokenFingerprint) : undefined;
    if (execution) {
      execution.stopped = true;
      execution.controller.abort(new Error('stopped by the streams app: ' + control.reason));
    }
  }

  async onBatch({ batch, isRunning, isStale, heartbeat }) {
    const now = Date.now();
    const live = () => isRunning() && !isStale() && !this.draining;
    let pending = [];
    for (const message of batch.messages) {
      if (runnable(pending) + this.inFlight >= this.capacity) {
        if (pending.length > 0) {
          await this.lease(batch, pending);
          pending = [];
        }
        while (this.inFlight >= this.capacity && live()) {
          await Promise.race([new Promise((resolve) => { this.slotFreed = resolve; }), new Promise((resolve) => setTimeout(resolve, 1000))]);
          await heartbeat(); // stay in the group while every slot is busy
        }
      }
      if (!live()) {
        return; // what is not leased stays uncommitted: the group hands it to another worker
      }
      let task;
      try {
        task = await this.serde.decode(message.value, this.types.ActivityTask);
      } catch (e) {
        if (e.retriable) {
          throw e; // a registry outage: kafkajs retries the batch, nothing is committed
        }
        // Never stall the queue on one record (section 8): keep it in the dead letters, go on.
        await this.deadLetter(batch, message, 'undecodable ActivityTask: ' + e.message);
        pending.push({ message, task: null });
        continue;
      }
      // Skip a task past its schedule-to-start deadline, and a copy of one this worker already runs.
      const skip = (task.deadlineMillis !== null && task.deadlineMillis <= now) || this.executions.has(tokenFingerprint(task.token))
        || pending.some((p) => p.task && p.task.token === task.token);
      pending.push({ message, task: skip ? null : task });
    }
    if (pending.length > 0 && live()) {
      await this.lease(batch, pending);
    }
  }

  /** Leases the tasks of these consecutive messages, commits their offsets with (or after) the LEASED events, starts them. */
  async lease(batch, pending) {
    const tasks = pending.map((p) => p.task).filter((t) => t);
    const next = (BigInt(pending[pending.length - 1].message.offset) + 1n).toString();
    const offsets = [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: next }] }];
    if (this.leaseMode === 'plain') {
      // LEASED goes out before any handler can report (one producer, in order); the handlers start at
      // once; the offsets only once every LEASED is acknowledged, so a lost lease is redelivered.
      const messages = await Promise.all(tasks.map((task) => this.report(task, 'LEASED')));
      const leased = messages.length > 0 ? this.reports.send({ topic: TOPICS.workerEvents, acks: -1, messages }) : Promise.resolve();
      tasks.forEach((task) => this.run(task));
      await leased;
      await this.consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
      return;
    }
    // The lease: every LEASED of the batch and the batch's offsets commit together, so a task is
    // leased by exactly one worker even across rebalances. Handlers start after the commit.
    const transaction = await this.leases.transaction();
    try {
      for (const task of tasks) {
        await transaction.send({ topic: TOPICS.workerEvents, acks: -1, messages: [await this.report(task, 'LEASED')] });
      }
      await transaction.sendOffsets({ consumerGroupId: this.groupId, topics: offsets });
      await transaction.commit();
    } catch (e) {
      await transaction.abort();
      throw e;
    }
    tasks.forEach((task) => this.run(task));
  }

  run(task) {
    const fingerprint = tokenFingerprint(task.token);
    const controller = new AbortController();
    const execution = { task, controller, stopped: false, parked: false };
    this.executions.set(fingerprint, execution);
    execution.done = this.execute(task, execution).finally(() => {
      this.executions.delete(fingerprint);
      this.slotFreed();
    });
  }

  async execute(task, execution) {
    const window = task.heartbeatWindowMillis || 30000;
    let details = null;
    const beat = () => this.send(task, 'HEARTBEAT', details || {}).catch(() => {});
    const heartbeats = setInterval(beat, Math.max(1, Math.floor(window / 3)));
    const ctx = {
      signal: execution.controller.signal,
      heartbeat: (data, contentType = 'application/octet-stream') => {
        details = { heartbeatDetails: Buffer.from(data), heartbeatContentType: contentType };
        return beat();
      },
    };
    try {
      const output = await this.handler(task.input ? task.input.data : Buffer.alloc(0), task, ctx);
      if (!execution.stopped && !execution.parked) {
        await this.send(task, 'COMPLETED', { output: { data: Buffer.from(output.data), contentType: output.contentType } });
      }
    } catch (e) {
      if (!execution.stopped && !execution.parked) {
        await this.send(task, 'FAILED', failureOf(e));
      }
    } finally {
      clearInterval(heartbeats);
    }
  }

  async send(task, kind, fields) {
    await this.reports.send({ topic: TOPICS.workerEvents, acks: -1, messages: [await this.report(task, kind, fields)] });
  }

  /** A WorkerEvent for the task's generation, carrying its token unchanged (section 6, Reports). */
  async report(task, kind, fields = {}) {
    const event = {
      kind, site: task.site, attempt: task.attempt, generation: task.generation, token: task.token, workerId: this.workerId,
      output: null, reason: null, heartbeatDetails: null, atMillis: Date.now(), failure: null, heartbeatContentType: null, ...fields,
    };
    return { key: siteKey(task.site), value: await this.serde.encode(TOPICS.workerEvents, this.types.WorkerEvent, event) };
  }

  async deadLetter(batch, message, reason) {
    const letter = {
      sourceTopic: batch.topic, sourcePartition: batch.partition, sourceOffset: Number(message.offset), key: message.key,
      value: message.value, reason, process: 'node-worker ' + this.workerId, atMillis: Date.now(),
    };
    const value = await this.serde.encode(TOPICS.dlq, this.types.DeadLetter, letter);
    await this.reports.send({ topic: TOPICS.dlq, acks: -1, messages: [{ key: message.key, value }] });
  }

  /** Section 6, Registration: the streams app tells an unserved queue from a saturated one by it. */
  async register() {
    const status = {
      workerId: this.workerId, queues: [this.queue], nodeLabels: [], capacity: this.capacity, inFlight: this.inFlight,
      draining: this.draining, startedAtMillis: this.startedAt, lastSeenMillis: Date.now(),
    };
    const value = await this.serde.encode(TOPICS.workers, this.types.WorkerStatus, status);
    await this.reports.send({ topic: TOPICS.workers, acks: -1, messages: [{ key: this.workerId, value }] });
  }

  /**
   * A drain that costs no retry: lease nothing more (the group hands unleased tasks to other
   * workers), let running handlers finish for up to `graceMs`, then give back the rest with PARKED
   * (the site re-delivers each as a new generation, consuming no retry) and close. Resolves with
   * {finished, parked}.
   */
  async drain({ graceMs = 10000 } = {}) {
    this.draining = true;
    await this.register();
    await this.consumer.stop();
    const running = [...this.executions.values()];
    await Promise.race([Promise.all(running.map((e) => e.done)), new Promise((resolve) => setTimeout(resolve, graceMs))]);
    const left = [...this.executions.values()];
    for (const execution of left) {
      execution.parked = true;
      await this.send(execution.task, 'PARKED');
      execution.controller.abort(new Error('parked by a drain'));
    }
    await this.close();
    return { finished: running.length - left.length, parked: left.length };
  }

  async close() {
    clearInterval(this.registration);
    await Promise.all([this.consumer.disconnect(), this.control.disconnect()]);
    // A tombstone: a clean exit, not a lost worker.
    await this.reports.send({ topic: TOPICS.workers, acks: -1, messages: [{ key: this.workerId, value: null }] });
    await Promise.all([this.leases && this.leases.disconnect(), this.reports.disconnect()]);
  }
}

module.exports = { Dispatcher, Worker, siteKey, idempotencyKey, tokenFingerprint, failureOf, TOPICS };
