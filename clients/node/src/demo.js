'use strict';
// Runs workers for one queue and dispatches activities to them through Baton, printing one JSON line
// per outcome and a summary; exits 0 only if the scenario's every expectation held.
//   node src/demo.js --bootstrap localhost:9092 --registry http://localhost:8081 [--queue payments]
//        [--activities 3] [--scenario echo|stop|drain] [--lease-mode transactional|plain] [--capacity 8]
// Scenarios:
//   echo   every activity completes with its input echoed, never more than --capacity running at once
//   stop   a running activity is cancelled: its caller gets `cancelled:` and its handler is aborted by a STOP
//   drain  a worker holding running activities drains: it parks them, a second worker finishes them, and
//          every caller gets its output at attempt 1 (a drain costs no retry)

const path = require('path');
const { Kafka, logLevel } = require('kafkajs');
const { loadEventTypes, RegistryClient } = require('./schemas');
const { Dispatcher, Worker } = require('./baton');

function options(argv) {
  const o = {
    queue: 'payments', activities: '3', scenario: 'echo', 'lease-mode': 'transactional', capacity: '8',
    'avro-dir': path.join(__dirname, '../../../schemas/src/main/avro'), timeout: '60000',
  };
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
  if (!['echo', 'stop', 'drain'].includes(o.scenario)) {
    throw new Error(`--scenario must be echo, stop or drain, got '${o.scenario}'`);
  }
  return o;
}

/** Resolves once check() holds, polling every 20 ms; rejects after timeoutMs naming what it waited for. */
async function until(what, check, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error('timed out waiting for ' + what);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A handler that runs until released or aborted, counting how many run at once. */
function gate() {
  const g = { running: 0, maxRunning: 0, aborted: 0, released: false };
  g.handler = (input, task, ctx) => new Promise((resolve, reject) => {
    g.running++;
    g.maxRunning = Math.max(g.maxRunning, g.running);
    const done = (f) => { g.running--; clearInterval(poll); f(); };
    const poll = setInterval(() => {
      if (g.released) {
        done(() => resolve({ data: Buffer.from('echo: ' + input.toString()), contentType: 'text/plain' }));
      }
    }, 10);
    ctx.signal.addEventListener('abort', () => { g.aborted++; done(() => reject(ctx.signal.reason)); });
  });
  return g;
}

async function main() {
  const o = options(process.argv.slice(2));
  const kafka = new Kafka({ clientId: 'baton-node-demo', brokers: o.bootstrap.split(','), logLevel: logLevel.WARN });
  const registry = new RegistryClient(o.registry);
  const types = loadEventTypes(o['avro-dir']);
  const count = Number(o.activities);
  const workerOptions = { kafka, registry, types, queue: o.queue, capacity: Number(o.capacity), leaseMode: o['lease-mode'] };
  const dispatcher = new Dispatcher({ kafka, registry, types, clientId: 'node-caller-' + process.pid });
  const timer = setTimeout(() => {
    console.error(`the ${o.scenario} scenario did not finish within ${o.timeout} ms`);
    process.exit(2);
  }, Number(o.timeout));
  const site = (i) => ({ namespace: 'node', workflowId: `wf-${o.scenario}-${process.pid}`, activityId: String(i + 1) });
  const dispatchAll = () => Array.from({ length: count }, (_, i) => dispatcher.dispatch({
    site: site(i), queue: o.queue, activityType: 'echo', input: 'hello ' + (i + 1), contentType: 'text/plain',
  }));
  const echoed = (outcome, i) => outcome.status === 'COMPLETED' && outcome.output && outcome.output.data.toString() === 'echo: hello ' + (i + 1);

  const g = gate();
  const worker = new Worker({ ...workerOptions, workerId: 'node-worker-' + process.pid, handler: g.handler });
  await Promise.all([worker.start(), dispatcher.start()]);
  const workers = [worker];
  const summary = { scenario: o.scenario, leaseMode: o['lease-mode'], of: count };
  let ok;
  if (o.scenario === 'echo') {
    const answered = dispatchAll();
    await until('activities to start', () => g.running >= Math.min(count, worker.capacity));
    g.released = true;
    const outcomes = await Promise.all(answered);
    print(outcomes);
    summary.completed = outcomes.filter(echoed).length;
    summary.maxRunning = g.maxRunning;
    ok = summary.completed === count && g.maxRunning <= worker.capacity;
  } else if (o.scenario === 'stop') {
    const answered = dispatcher.dispatch({ site: site(0), queue: o.queue, activityType: 'echo', input: 'hello 1', contentType: 'text/plain' });
    await until('the activity to start', () => g.running === 1);
    await dispatcher.cancel(site(0));
    const outcome = await answered;
    await until('the STOP to abort the handler', () => g.aborted === 1);
    print([outcome]);
    summary.of = 1;
    summary.cancelled = outcome.status === 'FAILED' && /^cancelled:/.test(outcome.reason) ? 1 : 0;
    summary.aborted = g.aborted;
    ok = summary.cancelled === 1 && g.aborted === 1;
  } else {
    const answered = dispatchAll();
    await until('activities to start', () => g.running === Math.min(count, worker.capacity));
    const g2 = gate();
    g2.released = true;
    const second = new Worker({ ...workerOptions, workerId: 'node-worker-' + process.pid + '-b', handler: g2.handler });
    await second.start();
    workers.push(second);
    const drained = await worker.drain({ graceMs: 200 });
    workers.shift();
    const outcomes = await Promise.all(answered);
    print(outcomes);
    summary.parked = drained.parked;
    summary.completed = outcomes.filter(echoed).length;
    summary.firstAttempt = outcomes.filter((x) => x.attempt === 1).length;
    summary.bySecond = outcomes.filter((x) => x.workerId === second.workerId).length;
    ok = summary.completed === count && summary.firstAttempt === count && drained.parked > 0 && summary.bySecond === drained.parked;
  }
  clearTimeout(timer);
  summary.registered = { ...dispatcher.serde.registered(), ...worker.serde.registered() };
  console.log(JSON.stringify(summary));
  await dispatcher.close();
  await Promise.all(workers.map((w) => w.close()));
  return ok ? 0 : 1;
}

function print(outcomes) {
  for (const outcome of outcomes) {
    const output = outcome.output ? outcome.output.data.toString() : null;
    console.log(JSON.stringify({ requestId: outcome.requestId, status: outcome.status, output, reason: outcome.reason, attempt: outcome.attempt,
      workerId: outcome.workerId }));
  }
}

main().then((code) => process.exit(code), (e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
