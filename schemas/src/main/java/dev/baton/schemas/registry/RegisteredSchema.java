package dev.baton.schemas.registry;

import org.apache.avro.Schema;

/** A schema as registered under a subject: its global id and its version within the subject (from 1). */
public record RegisteredSchema(String subject, int id, int version, Schema schema) {
}
