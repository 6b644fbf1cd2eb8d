package dev.baton.schemas;

import java.util.List;

import dev.baton.events.ActivityTask;
import dev.baton.events.DeadLetter;
import dev.baton.events.DispatchCommand;
import dev.baton.events.DispatchKind;
import dev.baton.events.Failure;
import dev.baton.events.HistoryEvent;
import dev.baton.events.HistoryKind;
import dev.baton.events.Outcome;
import dev.baton.events.OutcomeStatus;
import dev.baton.events.Payload;
import dev.baton.events.RetryPolicy;
import dev.baton.events.SiteRef;
import dev.baton.events.Timeouts;
import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerControlKind;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerEventKind;
import dev.baton.events.WorkerStatus;
import dev.baton.events.store.SiteState;
import dev.baton.events.store.SiteStatus;
import dev.baton.events.store.PreviousRun;
import dev.baton.events.store.Refusal;
import dev.baton.events.store.Superseded;
import dev.baton.events.store.Waiter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.util.ClassSecurityValidator;

/**
 * Avro 1.12 refuses to instantiate classes outside trusted packages while decoding. Baton's event
 * classes are added to the trusted set once, by class (not by package), so nothing else becomes
 * decodable by accident.
 */
public final class AvroTrust {

    /** Every event class Baton writes to Kafka. */
    public static final List<Class<? extends SpecificRecord>> EVENT_TYPES = List.of(
            DispatchCommand.class, WorkerEvent.class, ActivityTask.class, WorkerControl.class,
            WorkerStatus.class, Outcome.class, HistoryEvent.class, DeadLetter.class);

    private static boolean done;

    private AvroTrust() {
    }

    /** Idempotent. Also trusts any extra classes given (for Avro records of other modules). */
    public static synchronized void trustBatonEvents(Class<?>... extra) {
        if (done && extra.length == 0) {
            return;
        }
        ClassSecurityValidator.Builder builder = ClassSecurityValidator.builder();
        EVENT_TYPES.forEach(builder::add);
        List.of(SiteRef.class, Payload.class, Failure.class, RetryPolicy.class, Timeouts.class,
                SiteState.class, SiteStatus.class, Waiter.class, Superseded.class, PreviousRun.class, Refusal.class,
                DispatchKind.class, WorkerEventKind.class, WorkerControlKind.class, OutcomeStatus.class, HistoryKind.class)
                .forEach(builder::add);
        for (Class<?> c : extra) {
            builder.add(c);
        }
        ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(ClassSecurityValidator.getGlobal(), builder.build()));
        done = true;
    }
}
