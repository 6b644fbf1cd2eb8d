/**
 * The dispatch client's machinery, not its API: the results listener on the client's own partition,
 * the pending requests it answers, and the outcomes already delivered (a copy is dropped).
 */
package dev.baton.dispatcher.internals;
