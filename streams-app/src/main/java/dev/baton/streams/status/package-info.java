/** The streams app's status report and the HTTP endpoint that serves it. */
package dev.baton.streams.status;
