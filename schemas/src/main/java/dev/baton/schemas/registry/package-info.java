/**
 * Schema registries behind one interface ({@link dev.baton.schemas.registry.SchemaRegistry}): the Confluent REST
 * API ({@code http(s)://}), the {@code _baton_schemas} topic ({@code kafka://}) and memory ({@code mem://}), and
 * the one compatibility rule they enforce (BACKWARD, {@link dev.baton.schemas.registry.SchemaEvolution}).
 */
package dev.baton.schemas.registry;
