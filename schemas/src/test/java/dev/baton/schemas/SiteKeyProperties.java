package dev.baton.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.NotEmpty;
import org.junit.jupiter.api.Test;

class SiteKeyProperties {

    @Property(tries = 2000)
    void shouldParseBackWhatItRendersWhateverTheParts(@ForAll @NotEmpty String ns, @ForAll @NotEmpty String wf, @ForAll @NotEmpty String act) {
        SiteKey key = new SiteKey(ns, wf, act);
        assertThat(SiteKey.fromBytes(key.toBytes())).isEqualTo(key);
        assertThat(key.asKey().chars().filter(c -> c == '/').count()).isEqualTo(2);
    }

    /** A parsed key keeps the text it was parsed from: it must be the key form its parts render to. */
    @Property(tries = 2000)
    void shouldKeepTheKeyFormItWasParsedFrom(@ForAll("parts") String ns, @ForAll("parts") String wf, @ForAll("parts") String act) {
        SiteKey built = new SiteKey(ns, wf, act);
        SiteKey parsed = SiteKey.parse(built.asKey());
        assertThat(parsed.asKey()).isEqualTo(built.asKey());
        assertThat(parsed.toBytes()).isEqualTo(built.toBytes());
        assertThat(new SiteKey(parsed.namespace(), parsed.workflowId(), parsed.activityId()).asKey()).isEqualTo(parsed.asKey());
    }

    /** Equality is by parts, even where escaping makes two different-looking part lists render alike. */
    @Property(tries = 2000)
    void shouldBeEqualExactlyWhenThePartsAre(@ForAll("parts") String ns1, @ForAll("parts") String wf1, @ForAll("parts") String ns2,
                                             @ForAll("parts") String wf2) {
        SiteKey a = new SiteKey(ns1, wf1, "1");
        SiteKey b = new SiteKey(ns2, wf2, "1");
        boolean sameParts = ns1.equals(ns2) && wf1.equals(wf2);
        assertThat(a.equals(b)).isEqualTo(sameParts);
        if (sameParts) {
            assertThat(a.hashCode()).isEqualTo(b.hashCode());
        }
    }

    /** Short strings over the characters escaping touches, so collisions of the rendered forms are tried often. */
    @Provide
    Arbitrary<String> parts() {
        return Arbitraries.strings().withChars('/', '%', '2', 'F', '5', 'a').ofMinLength(1).ofMaxLength(4);
    }

    /** An ASCII key's bytes are kept as read; any other key's are the UTF-8 of its text, as every key's were. */
    @Property(tries = 2000)
    void shouldGiveTheBytesOfItsKeyFormWhateverBytesItWasParsedFrom(@ForAll("parts") String ns, @ForAll("parts") String wf,
                                                                   @ForAll byte[] tail) {
        byte[] read = concat(new SiteKey(ns, wf, "a").toBytes(), tail);
        SiteKey parsed;
        try {
            parsed = SiteKey.fromBytes(read);
        } catch (IllegalArgumentException notAKey) {
            return;
        }
        assertThat(parsed.toBytes()).isEqualTo(parsed.asKey().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
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
