package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.schemas.CompletionToken;
import dev.baton.schemas.SiteKey;
import org.junit.jupiter.api.Test;

class CompletionRefTest {

    @Test
    void shouldRoundTripItsTextEvenWithSlashesAndDotsInTheSite() {
        CompletionRef ref = new CompletionRef(new SiteKey("ns.a", "wf/1", "act%2"), 3, 7, CompletionToken.random().value());

        assertThat(CompletionRef.parse(ref.render())).isEqualTo(ref);
        assertThat(ref.render()).matches("[A-Za-z0-9_.-]+");
    }

    @Test
    void shouldNameWhatIsWrongWithText() {
        assertThatThrownBy(() -> CompletionRef.parse("abc.1.2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("4 parts").hasMessageContaining("had 3");
        assertThatThrownBy(() -> CompletionRef.parse("bnMvd2YvYQ.x.1.tok")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a completion reference");
        assertThatThrownBy(() -> CompletionRef.parse("bnMvd2YvYQ.0.1.tok")).hasMessageContaining("attempt must be >= 1, was 0");
    }

    @Test
    void shouldNeverShowTheTokenInItsToString() {
        String token = CompletionToken.random().value();
        assertThat(new CompletionRef(new SiteKey("ns", "wf", "a"), 1, 1, token).toString()).doesNotContain(token);
    }
}
