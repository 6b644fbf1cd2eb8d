/**
 * Typed activity payloads: how a value of an activity's input or output type becomes the bytes and
 * content type of a {@code Payload} and back. Shared by the dispatcher and the worker, which never
 * depend on each other.
 *
 * <p>{@link dev.baton.schemas.payload.PayloadConverter} is the SPI; {@link dev.baton.schemas.payload.PayloadConverters}
 * chooses one per value when encoding and one per content type when decoding. The defaults are raw
 * bytes ({@code application/octet-stream}), Avro specific records
 * ({@code application/vnd.apache.avro+binary}, single-object encoding) and Jackson JSON
 * ({@code application/json}) for everything else.
 */
package dev.baton.schemas.payload;
