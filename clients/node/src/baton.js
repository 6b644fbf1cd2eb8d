'use strict';
// A reference client of Baton's wire protocol (docs/protocol.md) in Node.js: a dispatcher that
// sends DispatchCommands and matches Outcomes, and a worker that leases tasks in a Kafka
// transaction (section 6, the mode an exactly-once streams app needs), runs a handler and reports.

const crypto = require('crypto');
const { Partitioners } = require('kafkajs');
const { Serde } = require('./schemas');

const TOPICS = {
  dispatch: 'baton.dispatch',
  workerEvents: 'baton.worker-events',
  results: 'baton.results',
  workers: 'baton.workers',
  dlq: 'baton.dlq',
  tasks: (queue) => 'baton.tasks.' + queue,
};

/** Section 4: each part with % then / percent-encoded, joined by /. */
function siteKey(site) {
  const escape = (part) => part.replace(/%/g, '%25').replace(/\//g, '%2F');
  return [site.namespace, site.workflowId, site.activityId].map(escape).join('/');
}

// Section 2: kafkajs 2.x's default partitioner is Java's (murmur2 of the key bytes): name it, so
// nobody swaps in the legacy one, which puts keys on partitions no stream task owns.
function producer(kafka, options = {}) {
  return kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: true, maxInFlightRequests: 1, ...options });
}

/** Sends activities to baton.dispatch and resolves each with its Outcome from baton.results. */
class Dispatcher {
  constructor({ kafka, registry, types, clientId }) {
    this.kafka = kafka;
    this.types = types;
    this.clientId = clientId;
    this.serde = new Serde(registry);
    this.pending = new Map();
    this.producer = producer(kafka);
    // The group commits its position, so a restarted client resumes where it stopped.
    this.consumer = kafka.consumer({ groupId: 'baton-dispatcher-' + clientId });
  }

  async start() {
    await this.producer.connect();
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: TOPICS.results, fromBeginning: true });
    const joined = new Promise((resolve) => this.consumer.on(this.consumer.events.GROUP_JOIN, resolve));
    await this.consumer.run({ eachMessage: ({ message }) => this.onResult(message) });
    await joined;
  }

  async onResult(message) {
    // Results are keyed by the caller's client id: keep only ours, and only requests we wait for.
    if (!message.key || message.key.toString() !== this.clientId) {
      return;
    }
    const outcome = await this.serde.decode(message.value, this.types.Outcome);
    const waiting = this.pending.get(outcome.requestId);
    if (waiting) {
      this.pending.delete(outcome.requestId);
      waiting(outcome);
    }
  }

  /** Section 5. Resolves with the Outcome record (status COMPLETED with output, or FAILED with reason). */
  async dispatch({ site, queue, activityType, input, contentType = 'application/json', attempt = 1, runId = '' }) {
    const requestId = crypto.randomUUID();
    const key = siteKey(site);
    const command = {
      kind: 'REQUESTED', site, requestId, replyKey: this.clientId, attempt, runId,
      // Stable per (site, runId) across attempts: any stable string works (section 5).
      idempotencyKey: crypto.createHash('sha256').update(key + '#' + runId).digest('hex'),
      queue, activityType, node: null,
      input: { data: Buffer.from(input), contentType },
      retryPolicy: null, timeouts: null, requestedAtMillis: Date.now(),
    };
    const answered = new Promise((resolve) => this.pending.set(requestId, resolve));
    const value = await this.serde.encode(TOPICS.dispatch, this.types.DispatchCommand, command);
    await this.producer.send({ topic: TOPICS.dispatch, acks: -1, messages: [{ key, value }] });
    return answered;
  }

  async close() {
    await this.consumer.disconnect();
    await this.producer.disconnect();
  }
}

/**
 * Serves one queue: leases each batch of tasks in one transaction with the batch's offsets, then
 * runs the handler (async (input: Buffer, task) => {data, contentType}) and reports the result on
 * a second, non-transactional producer, heartbeating while it runs.
 */
class Worker {
  constructor({ kafka, registry, types, workerId, queue, handler, capacity = 8 }) {
    this.kafka = kafka;
    this.types = types;
    this.workerId = workerId;
    this.queue = queue;
    this.handler = handler;
    this.capacity = capacity;
    this.serde = new Serde(registry);
    this.groupId = 'baton-worker-' + queue;
    this.inFlight = 0;
    this.startedAt = Date.now();
    this.leases = producer(kafka, { transactionalId: `baton-worker.${queue}.${workerId}` });
    this.reports = producer(kafka);
    this.consumer = kafka.consumer({ groupId: this.groupId });
  }

  async start() {
    await Promise.all([this.leases.connect(), this.reports.connect(), this.consumer.connect()]);
    await this.register(false);
    this.registration = setInterval(() => this.register(false).catch(() => {}), 3000);
    await this.consumer.subscribe({ topic: TOPICS.tasks(this.queue), fromBeginning: true });
    await this.consumer.run({ autoCommit: false, eachBatch: (batch) => this.onBatch(batch) });
  }

  async onBatch({ batch, isRunning }) {
    if (!isRunning() || batch.messages.length === 0) {
      return;
    }
    const now = Date.now();
    const tasks = [];
    for (const message of batch.messages) {
      let task;
      try {
        task = await this.serde.decode(message.value, this.types.ActivityTask);
      } catch (e) {
        if (e.retriable) {
          throw e; // a registry outage: kafkajs retries the batch, nothing is committed
        }
        // Never stall the queue on one record (section 8): keep it in the dead letters, go on.
        await this.deadLetter(batch, message, 'undecodable ActivityTask: ' + e.message);
        continue;
      }
      if (task.deadlineMillis === null || task.deadlineMillis > now) {
        tasks.push(task);
      }
    }
    // The lease: every LEASED of the batch and the batch's offsets commit together, so a task is
    // leased by exactly one worker even across rebalances. Handlers start after the commit.
    const transaction = await this.leases.transaction();
    try {
      for (const task of tasks) {
        await transaction.send({ topic: TOPICS.workerEvents, acks: -1, messages: [await this.report(task, 'LEASED')] });
      }
      const next = (BigInt(batch.messages[batch.messages.length - 1].offset) + 1n).toString();
      await transaction.sendOffsets({
        consumerGroupId: this.groupId,
        topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: next }] }],
      });
      await transaction.commit();
    } catch (e) {
      await transaction.abort();
      throw e;
    }
    for (const task of tasks) {
      this.run(task);
    }
  }

  async run(task) {
    this.inFlight++;
    const window = task.heartbeatWindowMillis || 30000;
    const heartbeat = setInterval(() => this.send(task, 'HEARTBEAT').catch(() => {}), Math.max(1, Math.floor(window / 3)));
    try {
      const output = await this.handler(task.input ? task.input.data : Buffer.alloc(0), task);
      await this.send(task, 'COMPLETED', { output: { data: Buffer.from(output.data), contentType: output.contentType } });
    } catch (e) {
      const reason = /^(retryable|terminal):/.test(String(e.message)) ? e.message : 'retryable: ' + e.message;
      await this.send(task, 'FAILED', { reason });
    } finally {
      clearInterval(heartbeat);
      this.inFlight--;
    }
  }

  async send(task, kind, fields) {
    await this.reports.send({ topic: TOPICS.workerEvents, acks: -1, messages: [await this.report(task, kind, fields)] });
  }

  /** A WorkerEvent for the task's generation, carrying its token unchanged (section 6, Reports). */
  async report(task, kind, fields = {}) {
    const event = {
      kind, site: task.site, attempt: task.attempt, generation: task.generation, token: task.token,
      workerId: this.workerId, output: null, reason: null, heartbeatDetails: null, atMillis: Date.now(), ...fields,
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
  async register(draining) {
    const status = {
      workerId: this.workerId, queues: [this.queue], nodeLabels: [], capacity: this.capacity, inFlight: this.inFlight,
      draining, startedAtMillis: this.startedAt, lastSeenMillis: Date.now(),
    };
    const value = await this.serde.encode(TOPICS.workers, this.types.WorkerStatus, status);
    await this.reports.send({ topic: TOPICS.workers, acks: -1, messages: [{ key: this.workerId, value }] });
  }

  async close() {
    clearInterval(this.registration);
    await this.consumer.disconnect();
    // A tombstone: a clean exit, not a lost worker.
    await this.reports.send({ topic: TOPICS.workers, acks: -1, messages: [{ key: this.workerId, value: null }] });
    await Promise.all([this.leases.disconnect(), this.reports.disconnect()]);
  }
}

module.exports = { Dispatcher, Worker, siteKey, TOPICS };
