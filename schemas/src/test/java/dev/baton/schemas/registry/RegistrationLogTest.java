package dev.baton.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@code kafka://} registry's log is writable by every role: no entry in it may stop a process replaying it. */
class RegistrationLogTest {

    private static final String GOOD = "{\"type\":\"record\",\"name\":\"Good\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}";

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"type\":\"record\",\"name\":\"Evil\",\"fields\":[{\"name\":\"a\",\"type\":\"int\",\"default\":\"not-an-int\"}]}",
            "{\"type\":\"record\",\"name\":\"Twice\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"a\",\"type\":\"int\"}]}",
            "{\"type\":\"fixed\",\"name\":\"Negative\",\"size\":-1}",
            "not json at all",
            ""})
    void shouldSkipAnEntryThatIsNotAValidSchema(String text) {
        RegistrationLog log = new RegistrationLog();

        assertThatCode(() -> log.apply(0, "poison-value", text)).doesNotThrowAnyException();
        log.apply(1, "good-value", GOOD);

        assertThat(log.schema(1)).as("entries after it still apply").isPresent();
        assertThat(log.schema(0)).isEmpty();
    }
}
