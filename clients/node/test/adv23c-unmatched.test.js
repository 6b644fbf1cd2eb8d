'use strict';
// adv23c: DESIGN section 6 — results that match no pending request (the process restarted, or it was
// fire-and-forget) go to a registered unmatched handler, the outbox; identical copies are dropped;
// a relay flagged `unmatched` never answers a waiting request. The Java client does all three. The
// Node reference client dropped every result it did not wait for, silently (its offset committed),
// and let an unmatched relay answer a waiting request.
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { Dispatcher } = require('../src/baton');
const { loadEventTypes, Serde } = require('../src/schemas');

const types = loadEventTypes(path.join(__dirname, '..', '..', '..', 'schemas', 'src', 'main', 'avro'));
const CLIENT = 'adv23c-node';

function dispatcher(unmatched) {
  const kafka = {
    producer: () => ({ connect: async () => {}, send: async () => {}, disconnect: async () => {} }),
    consumer: () => ({ connect: async () => {}, disconnect: async () => {} }),
  };
  const registry = { register: async () => 9, typeById: async () => types.Outcome };
  return new Dispatcher({ kafka, registry, types, clientId: CLIENT, unmatched });
}

async function outcomeMessage(fields) {
  const serde = new Serde({ register: async () => 9, typeById: async () => types.Outcome });
  const value = await serde.encode('baton.results', types.Outcome, {
    status: 'COMPLETED', site: { namespace: 'n', workflowId: 'w', activityId: 'a' }, requestId: 'r-1', replyKey: CLIENT,
    attempt: 1, output: { data: Buffer.from('out'), contentType: 'text/plain' }, reason: null, unmatched: false,
    workerId: 'w-1', atMillis: 1, failure: null, ...fields,
  });
  return { key: Buffer.from(CLIENT), value };
}

test('a result nobody waits for reaches the unmatched handler, once', async () => {
  const seen = [];
  const d = dispatcher((o) => seen.push(o));
  const message = await outcomeMessage({ requestId: 'before-restart' });
  await d.onResult(message);
  await d.onResult(message); // an identical copy (an at-least-once streams app, a restart of the reader)
  assert.strictEqual(seen.length, 1, 'the outcome of a request sent before a restart must reach the handler, once');
  assert.strictEqual(seen[0].requestId, 'before-restart');
});

test('a relay flagged unmatched does not answer a waiting request', async () => {
  const seen = [];
  const d = dispatcher((o) => seen.push(o));
  let answered = null;
  d.pending.set('waiting', (o) => { answered = o; });
  await d.onResult(await outcomeMessage({ requestId: 'waiting', unmatched: true }));
  assert.strictEqual(answered, null, 'an outbox relay is not the answer of the request');
  assert.strictEqual(seen.length, 1);
  await d.onResult(await outcomeMessage({ requestId: 'waiting' }));
  assert.ok(answered, 'its own outcome still answers it');
});
