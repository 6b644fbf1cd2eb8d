package dev.baton.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Adversary (adv21): the idempotency key is the MD5 UUID of {@code <site key>#<runId>}, and neither part escapes
 * '#': a site whose activity id has a '#' and a site that ends before it, with a run id that starts after it, give
 * one key. The key is what a handler deduplicates side effects by (DESIGN.md section 2, the README's
 * {@code "receipt-" + ctx.idempotencyKey()}): the second activity is taken for a retry of the first (its charge
 * skipped, the first's receipt returned). Anyone who may dispatch can aim a run id at another caller's site whose
 * activity id holds a '#'. Contract: the key is per (site, runId).
 */
class Adv21IdempotencyKeyTest {

    @Test
    void twoSitesAndRunsNeverShareAnIdempotencyKey() {
        ActivityRequest victim = ActivityRequest.builder().site("shop", "order-1", "charge#1").queue("payments").activityType("charge")
                .build();
        ActivityRequest other = ActivityRequest.builder().site("shop", "order-1", "charge").runId("1#").queue("payments")
                .activityType("charge").build();

        assertThat(other.site()).isNotEqualTo(victim.site());
        assertThat(other.idempotencyKey()).isNotEqualTo(victim.idempotencyKey());
    }
}
