package dev.baton.testkit.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.baton.schemas.SiteKey;
import org.junit.jupiter.api.Test;

class ScaleTallyTest {

    @Test
    void shouldCountEachActivityAnsweredOnceAndNothingElse() {
        ScaleTally tally = new ScaleTally(4);
        for (int i = 0; i < 3; i++) {
            tally.sent(i);
        }
        tally.named(0, "r0");
        tally.answered(ScaleTally.site(0), "r0", true);
        tally.answered(ScaleTally.site(1), "r1", false); // its id not known yet: the outcome names it

        ScaleTally.Verdict v = tally.verdict();

        assertThat(v).isEqualTo(new ScaleTally.Verdict(3, 2, 1, 0, 0, 1));
        assertThat(v.ok()).isFalse();
        assertThat(tally.answered()).isEqualTo(2);
        assertThat(tally.requestIds()).containsExactlyInAnyOrder("r0", "r1");
    }

    @Test
    void shouldCountASecondAnswerAndOutcomesForOtherRequestsOrSites() {
        ScaleTally tally = new ScaleTally(2);
        tally.sent(0);
        tally.sent(1);
        tally.named(0, "r0");
        tally.named(1, "r1");
        tally.answered(ScaleTally.site(0), "r0", true);
        tally.answered(ScaleTally.site(0), "r0", true);          // a copy: a second answer
        tally.answered(ScaleTally.site(1), "someone-else", true); // another request of the same site
        tally.answered(ScaleTally.site(7), "r7", true);           // beyond what was sent
        tally.answered(new SiteKey("other", "s-1", "a"), "r1", true);

        ScaleTally.Verdict v = tally.verdict();

        assertThat(v.moreThanOnce()).isEqualTo(1);
        assertThat(v.strays()).isEqualTo(3);
        assertThat(v.none()).isEqualTo(1);
        assertThat(v.ok()).isFalse();
    }

    @Test
    void shouldBeOkWhenEveryRequestIsAnsweredExactlyOnce() {
        ScaleTally tally = new ScaleTally(1000);
        for (int i = 0; i < 1000; i++) {
            tally.sent(i);
            tally.answered(ScaleTally.site(i), "r" + i, true);
        }

        assertThat(tally.verdict().ok()).isTrue();
        assertThat(tally.verdict().completed()).isEqualTo(1000);
    }

    @Test
    void shouldReadBackTheIndexOfItsOwnSitesOnly() {
        assertThat(ScaleTally.indexOf(ScaleTally.site(123_456))).isEqualTo(123_456);
        assertThat(ScaleTally.indexOf(new SiteKey("scale", "x-1", "a"))).isEqualTo(-1);
        assertThat(ScaleTally.indexOf(new SiteKey("scale", "s-one", "a"))).isEqualTo(-1);
        assertThat(ScaleTally.indexOf(new SiteKey("scale", "s-1", "b"))).isEqualTo(-1);
    }

    @Test
    void shouldSetAsideUnansweredRequestsOnlyAfterABoundedDrain() {
        List<String> violations = List.of("request r1 got 0 distinct outcomes, expected exactly 1 (its site's history: [DISPATCHED])",
                "request r2 got 2 distinct outcomes, expected exactly 1 (its site's history: [DISPATCHED])",
                "outcome for request r3 that history never saw");

        assertThat(ScaleTally.violationsBeyondBacklog(violations, true)).containsExactly(violations.get(1), violations.get(2));
        assertThat(ScaleTally.violationsBeyondBacklog(violations, false)).isEqualTo(violations);
    }

    @Test
    void shouldAllowABacklogOnlyOfRequestsWithNoOutcomeYet() {
        ScaleTally tally = new ScaleTally(3);
        for (int i = 0; i < 3; i++) {
            tally.sent(i);
        }
        tally.answered(ScaleTally.site(0), "r0", true);

        assertThat(tally.verdict().ok(true)).isTrue();
        assertThat(tally.verdict().ok(false)).isFalse();

        tally.answered(ScaleTally.site(0), "r0", true); // a second answer is never backlog
        assertThat(tally.verdict().ok(true)).isFalse();
    }
}
