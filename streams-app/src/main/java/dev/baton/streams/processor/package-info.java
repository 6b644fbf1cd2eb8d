/**
 * The rules of the site state machine as Streams processors: dispatch rules, worker-event rules,
 * deadline rules, the site lifecycle and the worker census. Each step reads a site's row, decides,
 * and stages its writes (row, deadline index, outputs) to commit or abort together.
 */
package dev.baton.streams.processor;
