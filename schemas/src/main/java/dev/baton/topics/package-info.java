/**
 * Baton's topics and its clients' identities: topic names and layouts, consumer groups and transactional
 * ids, the ACLs of each role, and the Kafka client configuration of each kind of client
 * ({@link dev.baton.topics.ClientConfigs}).
 */
package dev.baton.topics;
