'use strict';
// Baton's event types from the published .avsc files, and the Confluent wire format over a
// Confluent-compatible Schema Registry REST API (Baton's embedded one, or any other).
// docs/protocol.md section 3.

const fs = require('fs');
const path = require('path');
const avro = require('avsc');

const NAMESPACE = 'dev.baton.events';
// Shared named types first, so every event schema can refer to them by name.
const FILES = ['common/SiteRef', 'common/Payload', 'common/Failure', 'common/RetryPolicy', 'common/Timeouts',
  'Outcome', 'DispatchCommand', 'ActivityTask', 'WorkerEvent', 'WorkerControl', 'WorkerStatus', 'DeadLetter', 'HistoryEvent'];

/** Parses every event schema in avroDir (schemas/src/main/avro); returns {DispatchCommand: Type, ...}. */
function loadEventTypes(avroDir) {
  const registry = {};
  for (const file of FILES) {
    avro.Type.forSchema(JSON.parse(fs.readFileSync(path.join(avroDir, file + '.avsc'), 'utf8')), { registry });
  }
  const types = {};
  for (const [name, type] of Object.entries(registry)) {
    if (name.startsWith(NAMESPACE + '.')) {
      types[name.substring(NAMESPACE.length + 1)] = type;
    }
  }
  return types;
}

/** The few calls of the Confluent Schema Registry REST API a client needs. */
class RegistryClient {
  constructor(url) {
    this.url = url.replace(/\/$/, '');
  }

  /** Registers the type's full schema (named types inlined) under subject; resolves to its id. */
  async register(subject, type) {
    const body = JSON.stringify({ schema: JSON.stringify(type.schema({ exportAttrs: true })) });
    const answer = await this.call('POST', '/subjects/' + encodeURIComponent(subject) + '/versions', body);
    return answer.id;
  }

  /** The writer schema with this id, parsed. */
  async typeById(id) {
    const answer = await this.call('GET', '/schemas/ids/' + id);
    return avro.Type.forSchema(JSON.parse(answer.schema));
  }

  async call(method, urlPath, body) {
    let response;
    try {
      response = await fetch(this.url + urlPath, {
        method,
        body,
        headers: body ? { 'Content-Type': 'application/vnd.schemaregistry.v1+json' } : {},
      });
    } catch (e) {
      // The registry is unreachable: no record is at fault, so the caller retries instead of dead-lettering.
      throw Object.assign(new Error(`${method} ${this.url}${urlPath} failed: ${e.message}`), { retriable: true });
    }
    const answer = await response.json();
    if (!response.ok) {
      const error = new Error(`${method} ${urlPath} answered ${response.status}: error_code ${answer.error_code}, ${answer.message}`);
      throw Object.assign(error, { retriable: response.status >= 500 });
    }
    return answer;
  }
}

/**
 * Avro values in the Confluent wire format: byte 0, the schema id (4 bytes, big-endian), the body.
 * Subjects follow TopicNameStrategy (<topic>-value). Readers resolve the writer's schema (fetched
 * by id once) against their own, so fields Baton adds later with defaults are tolerated.
 */
class Serde {
  constructor(registry) {
    this.registry = registry;
    this.idBySubject = new Map();
    this.resolvers = new Map();
  }

  async encode(topic, type, value) {
    const subject = topic + '-value';
    if (!this.idBySubject.has(subject)) {
      this.idBySubject.set(subject, await this.registry.register(subject, type));
    }
    const header = Buffer.alloc(5);
    header.writeUInt8(0, 0);
    header.writeInt32BE(this.idBySubject.get(subject), 1);
    return Buffer.concat([header, type.toBuffer(value)]);
  }

  async decode(bytes, type) {
    if (!bytes || bytes.length < 5 || bytes.readUInt8(0) !== 0) {
      throw new Error('not in the Confluent wire format (magic byte 0 and a 4-byte schema id)');
    }
    const id = bytes.readInt32BE(1);
    const key = type.name + '#' + id;
    if (!this.resolvers.has(key)) {
      this.resolvers.set(key, type.createResolver(await this.registry.typeById(id)));
    }
    return type.fromBuffer(bytes.subarray(5), this.resolvers.get(key));
  }

  /** The ids this serde registered, by subject. */
  registered() {
    return Object.fromEntries(this.idBySubject);
  }
}

module.exports = { loadEventTypes, RegistryClient, Serde };
