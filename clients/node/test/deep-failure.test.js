'use strict';
// An outcome whose failure nests 200,000 causes deep (5 bytes a level, 1 MB; h/adv34): the Java client refuses it as
// CORRUPT_BODY and skips it (ResultListener); the Node reference client's onResult must not reject either, since kafkajs
// delivers a message whose eachMessage rejects again, which would hold back every later outcome of the partition. A later
// outcome on the same client is still delivered to its caller.
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { Dispatcher } = require('../src/baton');
const { loadEventTypes, Serde } = require('../src/schemas');

const types = loadEventTypes(path.join(__dirname, '..', '..', '..', 'schemas', 'src', 'main', 'avro'));
const CLIENT = 'deep-failure-node';

test('an outcome with a deeply nested failure is skipped, not thrown out of onResult', async () => {
  const kafka = {
    producer: () => ({ connect: async () => {}, send: async () => {}, disconnect: async () => {} }),
    consumer: () => ({ connect: async () => {}, disconnect: async () => {} }),
  };
  const registry = { register: async () => 9, typeById: async () => types.Outcome };
  const d = new Dispatcher({ kafka, registry, types, clientId: CLIENT, unmatched: () => {} });
  const serde = new Serde(registry);
  const shallow = await serde.encode('baton.results', types.Outcome, {
    status: 'FAILED', site: { namespace: 'n', workflowId: 'w', activityId: 'a' }, requestId: 'r-1', replyKey: CLIENT,
    attempt: 1, output: null, reason: 'terminal: x', unmatched: false, workerId: 'w-1', atMillis: 1, failure: null,
  });
  const levels = 200000;
  const chain = Buffer.alloc(1 + levels * 5);
  chain[0] = 2;
  for (let i = 0; i < levels; i++) {
    chain[1 + i * 5 + 4] = i < levels - 1 ? 2 : 0;
  }
  const value = Buffer.concat([shallow.subarray(0, shallow.length - 1), chain]);
  let thrown = null;
  try {
    await d.onResult({ key: Buffer.from(CLIENT), value });
  } catch (e) {
    thrown = e;
  }
  assert.strictEqual(thrown, null, 'onResult rejected with ' + thrown);
});

test('an outcome whose schema the registry cannot be asked for now is delivered again, not skipped', async () => {
  const kafka = {
    producer: () => ({ connect: async () => {}, send: async () => {}, disconnect: async () => {} }),
    consumer: () => ({ connect: async () => {}, disconnect: async () => {} }),
  };
  const writing = { register: async () => 9, typeById: async () => types.Outcome };
  const unreachable = {
    register: async () => 9,
    typeById: async () => { throw Object.assign(new Error('GET /schemas/ids/9 failed: ECONNREFUSED'), { retriable: true }); },
  };
  const d = new Dispatcher({ kafka, registry: unreachable, types, clientId: CLIENT, unmatched: () => {} });
  const value = await new Serde(writing).encode('baton.results', types.Outcome, {
    status: 'COMPLETED', site: { namespace: 'n', workflowId: 'w', activityId: 'a' }, requestId: 'r-2', replyKey: CLIENT,
    attempt: 1, output: null, reason: null, unmatched: false, workerId: 'w-1', atMillis: 1, failure: null,
  });

  await assert.rejects(d.onResult({ key: Buffer.from(CLIENT), value }), /ECONNREFUSED/);
});
