package dev.baton.streams.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

class AbandonedTransactionFencerTest {

    @Test
    void shouldTakeOnlyTheAppsOwnStreamThreadTransactionalIds() {
        Pattern ids = AbandonedTransactionFencer.transactionalIdsOf("baton.streams");

        assertThat(ids.matcher("baton.streams-09a7b565-fdff-449e-a841-667219c70ffe-1").matches()).isTrue();
        assertThat(ids.matcher("baton.streams-09a7b565-fdff-449e-a841-667219c70ffe-12").matches()).isTrue();
        // another app whose id differs only where a dot was, a worker's lease id, a foreign suffix
        assertThat(ids.matcher("batonxstreams-09a7b565-fdff-449e-a841-667219c70ffe-1").matches()).isFalse();
        assertThat(ids.matcher("baton-worker.q.w1").matches()).isFalse();
        assertThat(ids.matcher("baton.streams-v2-09a7b565-fdff-449e-a841-667219c70ffe-1").matches()).isFalse();
        assertThat(ids.matcher("baton.streams-09a7b565-fdff-449e-a841-667219c70ffe").matches()).isFalse();
    }

    @Test
    void shouldNotTakeAnAppWhoseIdExtendsThisOnesForThisOne() {
        Pattern baton = AbandonedTransactionFencer.transactionalIdsOf("baton");

        assertThat(baton.matcher("baton-09a7b565-fdff-449e-a841-667219c70ffe-3").matches()).isTrue();
        assertThat(baton.matcher("baton-streams-09a7b565-fdff-449e-a841-667219c70ffe-3").matches()).isFalse();
        assertThat(baton.matcher("baton-3f0e2a4c-1b2d-4e5f-8a9b-0c1d2e3f4a5b-09a7b565-fdff-449e-a841-667219c70ffe-3").matches()).isFalse();
    }

    @Test
    void shouldReadTheProcessOutOfATransactionalId() {
        assertThat(AbandonedTransactionFencer.processIdOf("baton.streams", "baton.streams-09a7b565-fdff-449e-a841-667219c70ffe-1"))
                .isEqualTo("09a7b565-fdff-449e-a841-667219c70ffe");
    }
}
