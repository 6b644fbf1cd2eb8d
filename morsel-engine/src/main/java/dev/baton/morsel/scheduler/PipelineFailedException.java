package dev.baton.morsel.scheduler;

/** A task of a pipeline failed; its siblings were cancelled. Names the pipeline and the morsel. */
public class PipelineFailedException extends RuntimeException {

    private final String pipeline;
    private final int morselId;

    public PipelineFailedException(String pipeline, int morselId, Throwable cause) {
        super("pipeline '" + pipeline + "' failed on morsel " + morselId + ": " + cause, cause);
        this.pipeline = pipeline;
        this.morselId = morselId;
    }

    public String pipeline() {
        return pipeline;
    }

    public int morselId() {
        return morselId;
    }
}
