'use strict';
// adv23c: DESIGN §6 — bad input (oversized payload, queue name characters, attempt < 1) fails fast
// with a clear error and nothing reaches the topic. The Java client refuses each; the Node reference
// client sent them to baton.dispatch, where the streams app answers 'terminal: invalid dispatch'
// after a round trip (or, for a queue nobody can serve, leaves the caller waiting 'unserved').
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { Dispatcher } = require('../src/baton');
const { loadEventTypes } = require('../src/schemas');

const types = loadEventTypes(path.join(__dirname, '..', '..', '..', 'schemas', 'src', 'main', 'avro'));

function dispatcher() {
  const sent = [];
  const kafka = {
    producer: () => ({ connect: async () => {}, send: async (r) => { sent.push(r); }, disconnect: async () => {} }),
    consumer: () => ({ connect: async () => {}, disconnect: async () => {} }),
  };
  const registry = { register: async () => 7, typeById: async () => types.DispatchCommand };
  return { d: new Dispatcher({ kafka, registry, types, clientId: 'adv23c-node' }), sent };
}

/** How a dispatch ended once the microtasks it queued have run: 'pending' if it still waits for an answer. */
async function settled(promise) {
  const marker = {};
  const tick = new Promise((resolve) => setTimeout(() => resolve(marker), 50)); // enough for the fakes' promises to run
  try {
    const r = await Promise.race([promise, tick]);
    return r === marker ? { state: 'pending' } : { state: 'resolved', value: r };
  } catch (e) {
    return { state: 'rejected', error: e };
  }
}

const base = { site: { namespace: 'n', workflowId: 'w', activityId: 'a' }, queue: 'q', activityType: 't', input: 'x' };

for (const [what, misuse, named] of [
  ['attempt 0', { attempt: 0 }, /attempt.*0/],
  ['attempt -3', { attempt: -3 }, /attempt.*-3/],
  ['attempt 1.5', { attempt: 1.5 }, /attempt.*1\.5/],
  ['a queue with a dot', { queue: 'a.b' }, /queue.*a\.b/],
  ['an empty queue', { queue: '' }, /queue/],
  ['an empty activity type', { activityType: '' }, /activityType/],
  ['an input over max.payload.bytes', { input: Buffer.alloc(524_289) }, /524288/],
]) {
  test(`dispatch refuses ${what} before anything is sent, naming the constraint and the value`, async () => {
    const { d, sent } = dispatcher();
    let result;
    try {
      result = await settled(d.dispatch({ ...base, ...misuse }));
    } catch (e) {
      result = { state: 'rejected', error: e };
    }
    assert.strictEqual(sent.length, 0, 'nothing may reach baton.dispatch');
    assert.strictEqual(result.state, 'rejected', 'the dispatch must fail, not wait');
    assert.match(String(result.error && result.error.message), named);
    assert.strictEqual(d.pending.size, 0, 'no caller left waiting');
  });
}

test('a send that fails leaves no pending entry behind', async () => {
  const { d } = dispatcher();
  d.producer.send = async () => { throw new Error('broker down'); };
  const result = await settled(d.dispatch(base));
  assert.strictEqual(result.state, 'rejected');
  assert.match(result.error.message, /broker down/);
  assert.strictEqual(d.pending.size, 0);
});
