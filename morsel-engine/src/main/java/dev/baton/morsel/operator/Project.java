package dev.baton.morsel.operator;

/** Computes {@code expr} into a new column {@code target} for the selected rows. */
public record Project(ColumnRef target, Expr expr) implements Stage {

    @Override
    public void apply(Batch b) {
        expr.eval(b, b.computed(target.index()), 0);
    }
}
