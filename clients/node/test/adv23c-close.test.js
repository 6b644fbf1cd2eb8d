'use strict';
// adv23c: DESIGN section 6 / the Java client: closing a client fails every dispatch still waiting
// (DispatchClientClosedException: its outcome reaches the next client with this id), and a dispatch
// after close fails at once. The Node reference client left waiting promises pending for good.
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
  return { d: new Dispatcher({ kafka, registry, types, clientId: 'adv23c-close' }), sent };
}

const request = { site: { namespace: 'n', workflowId: 'w', activityId: 'a' }, queue: 'q', activityType: 't', input: 'x' };

async function settled(promise) {
  const marker = {};
  const tick = new Promise((resolve) => setTimeout(() => resolve(marker), 50));
  try {
    const r = await Promise.race([promise, tick]);
    return r === marker ? { state: 'pending' } : { state: 'resolved', value: r };
  } catch (e) {
    return { state: 'rejected', error: e };
  }
}

test('close fails every waiting dispatch, naming the client', async () => {
  const { d, sent } = dispatcher();
  const waiting = d.dispatch(request);
  await settled(Promise.resolve()); // let it be sent
  assert.strictEqual(sent.length, 1);
  await d.close();
  const result = await settled(waiting);
  assert.strictEqual(result.state, 'rejected', 'a caller must not wait for good on a closed client');
  assert.match(result.error.message, /adv23c-close.*closed/);
});

test('a dispatch after close fails at once and sends nothing', async () => {
  const { d, sent } = dispatcher();
  await d.close();
  const result = await settled(d.dispatch(request));
  assert.strictEqual(result.state, 'rejected');
  assert.match(result.error.message, /closed/);
  assert.strictEqual(sent.length, 0);
});
