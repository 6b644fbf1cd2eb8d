package dev.baton.streams.processor;

import dev.baton.events.ActivityTask;
import dev.baton.events.DeadLetter;
import dev.baton.events.DispatchCommand;
import dev.baton.events.HistoryEvent;
import dev.baton.events.Outcome;
import dev.baton.events.WorkerControl;
import dev.baton.events.WorkerEvent;
import dev.baton.events.WorkerStatus;
import dev.baton.events.store.SiteState;
import dev.baton.schemas.EventSerde;
import dev.baton.schemas.registry.SchemaRegistry;

/** The value serdes of the streams app, sharing one registry. */
public record EventSerdes(
        EventSerde<DispatchCommand> dispatch,
        EventSerde<WorkerEvent> workerEvent,
        EventSerde<ActivityTask> task,
        EventSerde<WorkerControl> control,
        EventSerde<Outcome> outcome,
        EventSerde<HistoryEvent> history,
        EventSerde<DeadLetter> deadLetter,
        EventSerde<SiteState> siteState,
        EventSerde<WorkerStatus> workerStatus) {

    public static EventSerdes of(SchemaRegistry registry) {
        return new EventSerdes(EventSerde.of(DispatchCommand.class, registry), EventSerde.of(WorkerEvent.class, registry),
                EventSerde.of(ActivityTask.class, registry), EventSerde.of(WorkerControl.class, registry),
                EventSerde.of(Outcome.class, registry), EventSerde.of(HistoryEvent.class, registry),
                EventSerde.of(DeadLetter.class, registry), EventSerde.of(SiteState.class, registry),
                EventSerde.of(WorkerStatus.class, registry));
    }
}
