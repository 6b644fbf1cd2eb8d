'use strict';
// h/adv24b: one live client per client id, as the Java client (ClientIdInUseException). Two Node clients with one id
// joined one classic group and split baton.results' partitions between them: one of them could never see its outcomes.
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { Dispatcher } = require('../src/baton');
const { loadEventTypes } = require('../src/schemas');

const types = loadEventTypes(path.join(__dirname, '..', '..', '..', 'schemas', 'src', 'main', 'avro'));

/** A client whose group has `members` at each describe, one list per call (the last repeats). */
function dispatcher(membersByCall, clientIdWaitMs) {
  const calls = { describes: 0, joined: false, connected: 0 };
  const consumer = {
    events: { GROUP_JOIN: 'consumer.group_join' },
    connect: async () => { calls.connected += 1; },
    subscribe: async () => {},
    on: (event, listener) => { consumer.listener = listener; },
    run: async () => { calls.joined = true; setImmediate(() => consumer.listener({ payload: {} })); },
    disconnect: async () => {},
  };
  const kafka = {
    producer: () => ({ connect: async () => { calls.connected += 1; }, disconnect: async () => {} }),
    consumer: () => consumer,
    admin: () => ({
      connect: async () => {},
      disconnect: async () => {},
      describeGroups: async (ids) => {
        assert.deepStrictEqual(ids, ['baton-dispatcher-adv24b-node']);
        const members = membersByCall[Math.min(calls.describes, membersByCall.length - 1)];
        calls.describes += 1;
        return { groups: [{ groupId: ids[0], members }] };
      },
    }),
  };
  const registry = { register: async () => 7, typeById: async () => types.Outcome };
  return { d: new Dispatcher({ kafka, registry, types, clientId: 'adv24b-node', clientIdWaitMs }), calls };
}

const live = [{ memberId: 'm-1', clientHost: '/10.0.0.7' }];

test('a second live client with the same id is refused before it joins, naming the id and what to do', async () => {
  const { d, calls } = dispatcher([live], 0);
  await assert.rejects(d.start(), (e) => {
    assert.match(e.message, /^clientId must be unique among live clients; 'adv24b-node' is held by another live client/);
    assert.match(e.message, /member m-1 of group baton-dispatcher-adv24b-node, host \/10\.0\.0\.7/);
    assert.match(e.message, /another clientId, or close the other one first/);
    return true;
  });
  assert.strictEqual(calls.joined, false);
  assert.strictEqual(calls.connected, 0);
});

test('a client whose group has no member starts', async () => {
  const { d, calls } = dispatcher([[]], 0);
  await d.start();
  assert.strictEqual(calls.joined, true);
});

test('a client waits for a killed predecessor to leave the group, then starts', async () => {
  const { d, calls } = dispatcher([live, live, []], 10_000);
  await d.start();
  assert.strictEqual(calls.describes, 3);
  assert.strictEqual(calls.joined, true);
});
