'use strict';
// What the client must get exactly right without a broker: site keys, Confluent framing, and the
// partitioner (kafkajs's default must be Java's murmur2, docs/protocol.md section 2).
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { Partitioners } = require('kafkajs');
const { siteKey, idempotencyKey, tokenFingerprint, failureOf } = require('../src/baton');
const { loadEventTypes, Serde } = require('../src/schemas');

const types = loadEventTypes(path.join(__dirname, '../../../schemas/src/main/avro'));

test('site keys escape % then / in each part', () => {
  assert.strictEqual(siteKey({ namespace: 'shop', workflowId: 'order/42', activityId: 'charge' }), 'shop/order%2F42/charge');
  assert.strictEqual(siteKey({ namespace: 'a%2F', workflowId: 'b', activityId: 'c' }), 'a%252F/b/c');
});

test('a site part over 256 characters, or empty, is refused naming the bound', () => {
  assert.throws(() => siteKey({ namespace: 'shop', workflowId: 'w'.repeat(257), activityId: 'a' }), /site.workflowId must be a non-empty string of at most 256 characters, was 257 characters/);
  assert.throws(() => siteKey({ namespace: '', workflowId: 'w', activityId: 'a' }), /site.namespace/);
});

test('idempotency keys of different (site, run) pairs differ though a # could shift between them', () => {
  assert.notStrictEqual(idempotencyKey('shop/order-1/charge#1', ''), idempotencyKey('shop/order-1/charge', '1#'));
  assert.strictEqual(idempotencyKey('shop/order-1/charge', 'run-1'),
    require('crypto').createHash('sha256').update('shop/order-1/charge#run-1').digest('hex')); // keys without # unchanged
});

test('the default partitioner puts a key where Java murmur2 does', () => {
  const partitioner = Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: 12 }, (_, i) => ({ partitionId: i, leader: 0 }));
  // Java: Utils.toPositive(Utils.murmur2("shop/order%2F42/charge".getBytes(UTF_8))) % 12
  const partition = partitioner({ topic: 't', partitionMetadata, message: { key: Buffer.from('shop/order%2F42/charge') } });
  assert.strictEqual(partition, 8);
});

test('values are framed with magic byte 0 and the registered id, and read back', async () => {
  const registry = { register: async () => 42, typeById: async () => types.WorkerStatus };
  const serde = new Serde(registry);
  const status = { workerId: 'w', queues: ['q'], nodeLabels: [], capacity: 1, inFlight: 0, draining: false, startedAtMillis: 1, lastSeenMillis: 2 };
  const bytes = await serde.encode('baton.workers', types.WorkerStatus, status);
  assert.strictEqual(bytes.readUInt8(0), 0);
  assert.strictEqual(bytes.readInt32BE(1), 42);
  assert.deepStrictEqual({ ...(await serde.decode(bytes, types.WorkerStatus)) }, status);
  assert.deepStrictEqual(serde.registered(), { 'baton.workers-value': 42 });
});

test('every published schema is loaded (a new .avsc must be added to the list, shared types first)', () => {
  const fs = require('fs');
  const avroDir = path.join(__dirname, '../../../schemas/src/main/avro');
  const published = ['.', 'common'].flatMap((dir) => fs.readdirSync(path.join(avroDir, dir))
    .filter((f) => f.endsWith('.avsc')).map((f) => f.replace(/\.avsc$/, '')));
  for (const name of published) {
    assert.ok(types[name], `${name}.avsc is not loaded by src/schemas.js`);
  }
});

test('a STOP names a token by the fingerprint Java computes (CompletionToken.fingerprint)', () => {
  assert.strictEqual(tokenFingerprint('q3Jx0bVhZkT2m9LpW1aYcQ'), 'QnbZGTdUTqslMbnEvJ4Wvg');
});

test('a thrown error becomes a prefixed reason and a structured failure', () => {
  const plain = failureOf(new TypeError('card declined'));
  assert.strictEqual(plain.reason, 'retryable: card declined');
  assert.strictEqual(plain.failure.type, 'TypeError');
  assert.match(plain.failure.stack, /card declined/);
  const terminal = failureOf(Object.assign(new Error('terminal: no such account'), { failureType: 'NoAccount' }));
  assert.strictEqual(terminal.reason, 'terminal: no such account');
  assert.strictEqual(terminal.failure.type, 'NoAccount');
});
