package dev.baton.bench.tpch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.baton.morsel.data.PageFileWriter;
import io.trino.tpch.LineItem;
import io.trino.tpch.LineItemGenerator;
import io.trino.tpch.Part;
import io.trino.tpch.PartGenerator;

/**
 * TPC-H {@code lineitem} and {@code part} generated with trino-tpch and converted once to page files,
 * cached on disk by scale factor and page size. Decimals are fixed-point longs (scale 2), dates are
 * days since 1970-01-01, flags are their character code, and {@code p_promo} is 1 when
 * {@code p_type} starts with {@code PROMO} (the only use Q14 makes of it). The page files store each
 * column page in its narrowest encoding.
 */
public final class TpchData {

    public static final List<String> LINEITEM = List.of("l_orderkey", "l_partkey", "l_quantity", "l_extendedprice",
            "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate");
    public static final List<String> PART = List.of("p_partkey", "p_promo");

    public static final int ORDERKEY = 0;
    public static final int PARTKEY = 1;
    public static final int QUANTITY = 2;
    public static final int EXTENDEDPRICE = 3;
    public static final int DISCOUNT = 4;
    public static final int TAX = 5;
    public static final int RETURNFLAG = 6;
    public static final int LINESTATUS = 7;
    public static final int SHIPDATE = 8;

    /** In the cached file's name: files of the 64-bit format (no suffix) stay readable but are regenerated narrow. */
    private static final String FORMAT = "-narrow";

    private TpchData() {
    }

    public static Path lineitem(Path dir, double scaleFactor, int pageBytes) {
        Path file = dir.resolve("lineitem-sf" + scaleFactor + "-p" + pageBytes + FORMAT + ".btn");
        if (!Files.exists(file)) {
            createDirs(dir);
            try (PageFileWriter w = new PageFileWriter(file, LINEITEM, pageBytes)) {
                for (LineItem li : new LineItemGenerator(scaleFactor, 1, 1)) {
                    w.append(li.getOrderKey(), li.getPartKey(), li.getQuantity() * 100, li.getExtendedPriceInCents(),
                            li.getDiscountPercent(), li.getTaxPercent(), li.getReturnFlag().charAt(0), li.getStatus().charAt(0),
                            li.getShipDate());
                }
            }
        }
        return file;
    }

    public static Path part(Path dir, double scaleFactor, int pageBytes) {
        Path file = dir.resolve("part-sf" + scaleFactor + "-p" + pageBytes + FORMAT + ".btn");
        if (!Files.exists(file)) {
            createDirs(dir);
            try (PageFileWriter w = new PageFileWriter(file, PART, pageBytes)) {
                for (Part p : new PartGenerator(scaleFactor, 1, 1)) {
                    w.append(p.getPartKey(), p.getType().startsWith("PROMO") ? 1 : 0);
                }
            }
        }
        return file;
    }

    private static void createDirs(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
    }
}
