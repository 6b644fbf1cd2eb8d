'use strict';
// Runs a worker for one queue and dispatches activities to it through Baton, printing one JSON line
// per outcome and a summary; exits 0 only if every activity completed with the echoed input.
//   node src/demo.js --bootstrap localhost:9092 --registry http://localhost:8081 [--queue payments] [--activities 3]

const path = require('path');
const { Kafka, logLevel } = require('kafkajs');
const { loadEventTypes, RegistryClient } = require('./schemas');
const { Dispatcher, Worker } = require('./baton');

function options(argv) {
  const o = { queue: 'payments', activities: '3', 'avro-dir': path.join(__dirname, '../../../schemas/src/main/avro'), timeout: '60000' };
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) {
      throw new Error('expected --name value pairs, got ' + JSON.stringify(argv.slice(i)));
    }
    o[argv[i].substring(2)] = argv[i + 1];
  }
  for (const required of ['bootstrap', 'registry']) {
    if (!o[required]) {
      throw new Error('--' + required + ' is required');
    }
  }
  return o;
}

async function main() {
  const o = options(process.argv.slice(2));
  const kafka = new Kafka({ clientId: 'baton-node-demo', brokers: o.bootstrap.split(','), logLevel: logLevel.WARN });
  const registry = new RegistryClient(o.registry);
  const types = loadEventTypes(o['avro-dir']);
  const echo = async (input) => ({ data: Buffer.from('echo: ' + input.toString()), contentType: 'text/plain' });
  const worker = new Worker({ kafka, registry, types, workerId: 'node-worker-' + process.pid, queue: o.queue, handler: echo });
  const dispatcher = new Dispatcher({ kafka, registry, types, clientId: 'node-caller-' + process.pid });
  await worker.start();
  await dispatcher.start();
  const timer = setTimeout(() => {
    console.error('not every activity was answered within ' + o.timeout + ' ms');
    process.exit(2);
  }, Number(o.timeout));
  const count = Number(o.activities);
  const outcomes = await Promise.all(Array.from({ length: count }, (_, i) => dispatcher.dispatch({
    site: { namespace: 'node', workflowId: 'wf-' + process.pid, activityId: String(i + 1) },
    queue: o.queue, activityType: 'echo', input: 'hello ' + (i + 1), contentType: 'text/plain',
  })));
  clearTimeout(timer);
  let completed = 0;
  for (const [i, outcome] of outcomes.entries()) {
    const output = outcome.output ? outcome.output.data.toString() : null;
    const ok = outcome.status === 'COMPLETED' && output === 'echo: hello ' + (i + 1);
    completed += ok ? 1 : 0;
    console.log(JSON.stringify({ requestId: outcome.requestId, status: outcome.status, output, reason: outcome.reason, workerId: outcome.workerId }));
  }
  const registered = { ...dispatcher.serde.registered(), ...worker.serde.registered() };
  console.log(JSON.stringify({ completed, of: count, registered }));
  await dispatcher.close();
  await worker.close();
  return completed === count ? 0 : 1;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
