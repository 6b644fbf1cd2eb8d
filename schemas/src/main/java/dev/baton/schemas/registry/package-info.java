/**
 * Schema registries behind one interface ({@link dev.baton.schemas.registry.SchemaRegistry}): the Confluent REST
 * API ({@code http(s)://}), the {@code _baton_schemas} topic ({@code kafka://}) and memory ({@code mem://}), and
 * the one compatibility rule they enforce (BACKWARD, {@link dev.baton.schemas.registry.SchemaEvolution}).
 * Baton's own registries identify a schema by Avro's parsing canonical form, so a client in any language
 * gets the Java processes' ids; {@link dev.baton.schemas.registry.SchemaRegistryRestServer} serves any of
 * them over the Confluent Schema Registry REST API, for clients that speak only that.
 */
package dev.baton.schemas.registry;
