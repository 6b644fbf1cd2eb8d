package dev.baton.morsel.operator;

import static dev.baton.morsel.operator.Expr.add;
import static dev.baton.morsel.operator.Expr.lit;
import static dev.baton.morsel.operator.Expr.mul;
import static dev.baton.morsel.operator.Expr.sub;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;

import dev.baton.morsel.data.PageFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Projection alone: an expression over narrow columns equals the same arithmetic on the values. */
class ProjectTest {

    @TempDir
    Path dir;

    @Test
    void shouldComputeTheExpressionForEverySelectedRow() {
        long[][] rows = new long[200][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = new long[] {100_000 + i * 37L, i % 11, i % 9};
        }
        PageFile f = Tables.write(dir, "li", List.of("price", "disc", "tax"), rows);
        ScanPipeline scan = ScanPipeline.over(f);
        ColumnRef price = scan.col("price");
        ColumnRef discPrice = scan.project("disc_price", mul(price, sub(lit(100), scan.col("disc"))));
        ColumnRef charge = scan.project("charge", mul(discPrice, add(lit(100), scan.col("tax"))));
        ColumnRef both = scan.project("both", add(mul(discPrice, lit(2)), sub(charge, price)));

        Batch b = new Batch(f, 3);
        int row = 0;
        for (int p = 0; p < f.pageCount(); p++) {
            b.reset(p);
            new Project(discPrice, mul(price, sub(lit(100), scan.col("disc")))).apply(b);
            new Project(charge, mul(discPrice, add(lit(100), scan.col("tax")))).apply(b);
            new Project(both, add(mul(discPrice, lit(2)), sub(charge, price))).apply(b);
            for (int i = 0; i < b.rows(); i++, row++) {
                long dp = rows[row][0] * (100 - rows[row][1]);
                long ch = dp * (100 + rows[row][2]);
                assertThat(b.computed(discPrice.index())[i]).isEqualTo(dp);
                assertThat(b.computed(charge.index())[i]).isEqualTo(ch);
                assertThat(b.computed(both.index())[i]).isEqualTo(dp * 2 + (ch - rows[row][0]));
            }
        }
        assertThat(row).isEqualTo(rows.length);
    }

    @Test
    void shouldComputeTheSelectedRowsWhenAFilterLeftFew() {
        long[][] rows = new long[200][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = new long[] {100_000 + i * 37L, i % 11};
        }
        PageFile f = Tables.write(dir, "few", List.of("price", "disc"), rows);
        ScanPipeline scan = ScanPipeline.over(f);
        ColumnRef discPrice = scan.project("disc_price", mul(scan.col("price"), sub(lit(100), scan.col("disc"))));
        Batch b = new Batch(f, 1);
        int checked = 0;
        for (int p = 0; p < f.pageCount(); p++) {
            b.reset(p);
            RangeFilter.atMost(scan.col("disc"), 3).apply(b); // 4 of 11 rows: through the selection, not all rows
            assertThat(b.computeAllRows()).isFalse();
            new Project(discPrice, mul(scan.col("price"), sub(lit(100), scan.col("disc")))).apply(b);
            for (int j = 0; j < b.selected(); j++) {
                int i = b.selection()[j];
                long[] row = rows[p * 64 + i];
                assertThat(b.computed(discPrice.index())[i]).isEqualTo(row[0] * (100 - row[1]));
                checked++;
            }
        }
        assertThat(checked).isEqualTo((int) java.util.Arrays.stream(rows).filter(r -> r[1] <= 3).count());
    }

    @Test
    void shouldRefuseAnUnknownColumnNamingTheColumnsThereAre() {
        PageFile f = Tables.write(dir, "x", List.of("a"), new long[][] {{1}});
        assertThatThrownBy(() -> ScanPipeline.over(f).col("b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no column 'b'").hasMessageContaining("[a]");
    }
}
