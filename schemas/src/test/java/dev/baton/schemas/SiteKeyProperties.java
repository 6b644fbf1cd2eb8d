package dev.baton.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.NotEmpty;
import org.junit.jupiter.api.Test;

class SiteKeyProperties {

    @Property(tries = 2000)
    void shouldParseBackWhatItRendersWhateverTheParts(@ForAll @NotEmpty String ns, @ForAll @NotEmpty String wf, @ForAll @NotEmpty String act) {
        SiteKey key = new SiteKey(ns, wf, act);
        assertThat(SiteKey.fromBytes(key.toBytes())).isEqualTo(key);
        assertThat(key.asKey().chars().filter(c -> c == '/').count()).isEqualTo(2);
    }

    @Test
    void shouldEscapeSlashesAndPercentSigns() {
        assertThat(new SiteKey("a/b", "50%", "c").asKey()).isEqualTo("a%2Fb/50%25/c");
    }

    @Test
    void shouldRefuseAKeyWithTheWrongNumberOfParts() {
        assertThatThrownBy(() -> SiteKey.parse("a/b")).hasMessageContaining("3 '/'-separated parts, was 2");
    }

    @Test
    void shouldRefuseAnEmptyPart() {
        assertThatThrownBy(() -> new SiteKey("ns", "", "1")).hasMessage("workflowId must be a non-empty string, was ''");
    }

    @Test
    void shouldIssueDistinctUrlSafeTokensOf128Bits() {
        CompletionToken a = CompletionToken.random();
        CompletionToken b = CompletionToken.random();
        assertThat(a.value()).hasSize(CompletionToken.LENGTH).matches("[A-Za-z0-9_-]+");
        assertThat(a).isNotEqualTo(b);
        assertThat(a.matches(a.value())).isTrue();
        assertThat(a.matches(b.value())).isFalse();
        assertThat(a.toString()).doesNotContain(a.value());
    }
}
