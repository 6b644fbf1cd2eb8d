package dev.baton.bench.tpch;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import dev.baton.morsel.data.PageFile;
import io.trino.tpch.Part;
import io.trino.tpch.PartGenerator;

/**
 * DuckDB, in-process, loaded once with the same rows the engine reads (lineitem from the page file;
 * part from the generator, since Q14 needs the real {@code p_type}). The peer every engine result is
 * checked against and timed beside.
 */
public final class DuckDbPeer implements AutoCloseable {

    private final Connection connection;

    public DuckDbPeer(PageFile lineitem, double scaleFactor, Path workDir) {
        try {
            Class.forName("org.duckdb.DuckDBDriver");
            connection = DriverManager.getConnection("jdbc:duckdb:");
            try (Statement s = connection.createStatement()) {
                s.execute("CREATE TABLE lineitem (l_orderkey BIGINT, l_partkey BIGINT, l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2),"
                        + " l_discount DECIMAL(15,2), l_tax DECIMAL(15,2), l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE)");
                s.execute("CREATE TABLE part (p_partkey BIGINT, p_type VARCHAR)");
                Path liCsv = writeLineitemCsv(lineitem, workDir.resolve("lineitem-duckdb.csv"));
                Path partCsv = writePartCsv(scaleFactor, workDir.resolve("part-duckdb.csv"));
                s.execute("COPY lineitem FROM '" + liCsv + "' (HEADER false)");
                s.execute("COPY part FROM '" + partCsv + "' (HEADER false)");
                Files.deleteIfExists(liCsv);
                Files.deleteIfExists(partCsv);
            }
        } catch (SQLException | ClassNotFoundException e) {
            throw new IllegalStateException("cannot start DuckDB: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void threads(int n) {
        execute("SET threads = " + n);
    }

    /**
     * Runs the query into a temporary table (DuckDB's own columnar form) and reads the rows from it only
     * when asked: the bench times the query, not the JDBC boxing of a large result.
     */
    public Answer answer(String sql) {
        execute("CREATE OR REPLACE TEMP TABLE baton_answer AS " + sql);
        return () -> query("SELECT * FROM baton_answer");
    }

    public List<List<Object>> query(String sql) {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            List<List<Object>> rows = new ArrayList<>();
            while (rs.next()) {
                List<Object> row = new ArrayList<>();
                for (int c = 1; c <= columns; c++) {
                    Object v = rs.getObject(c);
                    row.add(v instanceof Integer i ? Long.valueOf(i) : v instanceof BigInteger b ? Long.valueOf(b.longValueExact()) : v);
                }
                rows.add(row);
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("DuckDB query failed: " + e.getMessage() + " — " + sql, e);
        }
    }

    private void execute(String sql) {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("DuckDB statement failed: " + e.getMessage() + " — " + sql, e);
        }
    }

    private static Path writeLineitemCsv(PageFile li, Path csv) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(csv)) {
            for (int p = 0; p < li.pageCount(); p++) {
                LongBuffer[] cols = new LongBuffer[TpchData.LINEITEM.size()];
                for (int c = 0; c < cols.length; c++) {
                    cols[c] = li.page(p, c);
                }
                for (int i = 0; i < li.rowsIn(p); i++) {
                    w.write(cols[0].get(i) + "," + cols[1].get(i) + "," + BigDecimal.valueOf(cols[2].get(i), 2) + ","
                            + BigDecimal.valueOf(cols[3].get(i), 2) + "," + BigDecimal.valueOf(cols[4].get(i), 2) + ","
                            + BigDecimal.valueOf(cols[5].get(i), 2) + "," + (char) cols[6].get(i) + "," + (char) cols[7].get(i) + ","
                            + LocalDate.ofEpochDay(cols[8].get(i)) + "\n");
                }
            }
        }
        return csv;
    }

    private static Path writePartCsv(double scaleFactor, Path csv) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(csv)) {
            for (Part p : new PartGenerator(scaleFactor, 1, 1)) {
                w.write(p.getPartKey() + "," + p.getType() + "\n");
            }
        }
        return csv;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            // nothing left to release
        }
    }
}
