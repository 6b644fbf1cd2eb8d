'use strict';
// Confluent's own JavaScript registry client (@kafkajs/confluent-schema-registry), unchanged, against
// Baton's registry REST API: register (twice, laid out differently), encode and decode in the Confluent
// wire format, read the id of a subject Baton registered, and be refused an incompatible change.
// Prints one JSON line; exits 0 only if every check held.
//   node src/confluent-check.js --registry http://localhost:8081

const { SchemaRegistry, SchemaType } = require('@kafkajs/confluent-schema-registry');

async function main() {
  const at = process.argv.indexOf('--registry');
  if (at < 0 || !process.argv[at + 1]) {
    throw new Error('--registry URL is required');
  }
  const registry = new SchemaRegistry({ host: process.argv[at + 1] });
  const ping = { type: 'record', name: 'Ping', namespace: 'it.confluent', fields: [{ name: 'n', type: 'int' }] };
  const subject = { subject: 'confluent-check-value' };
  const { id } = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(ping) }, subject);
  const again = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(ping, null, 4) }, subject);
  const decoded = await registry.decode(await registry.encode(id, { n: 7 }));
  const dispatchId = await registry.getLatestSchemaId('baton.dispatch-value');
  let refused = null;
  try {
    const breaking = { ...ping, fields: [...ping.fields, { name: 'm', type: 'int' }] };
    await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(breaking) }, subject);
  } catch (e) {
    refused = e.message;
  }
  const ok = again.id === id && decoded.n === 7 && refused !== null && refused.includes('BACKWARD');
  console.log(JSON.stringify({ ok, id, again: again.id, decoded, dispatchId, refused }));
  return ok ? 0 : 1;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
