/**
 * The site store and what a step reads from it: the row of a site, the deadline index, the fence that
 * classifies a report's token as current, earlier or forged.
 */
package dev.baton.streams.state;
