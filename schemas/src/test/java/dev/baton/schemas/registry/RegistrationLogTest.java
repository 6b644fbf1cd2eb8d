package dev.baton.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.groups.Tuple.tuple;

import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@code kafka://} registry's log is writable by every role: no entry in it may stop a process replaying it. */
class RegistrationLogTest {

    private static final String GOOD = "{\"type\":\"record\",\"name\":\"Good\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}";
    private static final String STRING_FIELD = "{\"type\":\"record\",\"name\":\"Str\",\"fields\":[{\"name\":\"s\",\"type\":\"string\"}]}";

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

    @Test
    void shouldGiveOneIdToTheSameSchemaWrittenWithOtherWhitespaceKeyOrderOrJavaProperties() {
        RegistrationLog log = new RegistrationLog();
        log.apply(0, "a-value", STRING_FIELD);
        log.apply(1, "a-value", "{ \"fields\" : [ {\"type\": {\"type\":\"string\",\"avro.java.string\":\"String\"},\"name\":\"s\"} ],\n"
                + "  \"name\": \"Str\", \"type\": \"record\" }");

        assertThat(log.idUnder("a-value", parse(STRING_FIELD))).contains(0);
        assertThat(log.versions("a-value")).as("one schema, one version").singleElement()
                .satisfies(v -> assertThat(v.id()).isZero());
    }

    @Test
    void shouldKeepReadingAnIdAnOlderRuleGaveToAnotherTextOfTheSameSchema() {
        RegistrationLog log = new RegistrationLog();
        log.apply(0, "a-value", STRING_FIELD);
        log.apply(7, "b-value", STRING_FIELD.replace(":", " : "));

        assertThat(log.schema(7)).as("data framed with the legacy id 7 stays readable")
                .hasValueSatisfying(s -> assertThat(s.getFullName()).isEqualTo("Str"));
        assertThat(log.idUnder("b-value", parse(STRING_FIELD))).as("registration hands out the canonical id").contains(0);
    }

    @Test
    void shouldListSubjectsAndTheirVersionsInOrder() {
        RegistrationLog log = new RegistrationLog();
        log.apply(0, "b-value", GOOD);
        log.apply(1, "a-value", STRING_FIELD);
        log.apply(2, "a-value", GOOD);

        assertThat(log.subjects()).containsExactly("a-value", "b-value");
        assertThat(log.versions("a-value")).extracting(RegisteredSchema::version, RegisteredSchema::id)
                .containsExactly(tuple(1, 1), tuple(2, 0));
        assertThat(log.lookup("a-value", parse(GOOD))).hasValueSatisfying(v -> assertThat(v.version()).isEqualTo(2));
        assertThat(log.versions("unknown")).isEmpty();
    }

    private static Schema parse(String text) {
        return new Schema.Parser().parse(text);
    }
}
