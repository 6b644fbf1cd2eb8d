package dev.baton.morsel.kafka;

import java.io.IOException;
import java.lang.constant.ConstantDescs;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;

/**
 * The class {@link ProjectionPlan} defines once per plan as a hidden class, with the plan's method handle as its
 * class data. Never used as itself: only its bytes are read. A static final method handle is a constant to the JIT,
 * so each hidden copy's {@link #decode} compiles into straight-line code for its one writer schema, with every field's
 * step inlined, where a handle held in an ordinary field would be invoked through generic adapters.
 */
final class PlanTemplate implements ProjectionPlan.Decoder {

    private static final MethodHandle BODY = body();

    private static MethodHandle body() {
        try {
            return MethodHandles.classData(MethodHandles.lookup(), ConstantDescs.DEFAULT_NAME, MethodHandle.class);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("a plan's class data is its own", e);
        }
    }

    @Override
    public void decode(WireReader in, ProjectedRow row) throws IOException {
        try {
            BODY.invokeExact(in, row);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("a plan's step threw " + t, t);
        }
    }
}
