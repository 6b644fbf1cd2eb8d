/**
 * Columnar page files: the engine's input format, written once and scanned in page-range morsels.
 * Each column page is stored in its narrowest encoding ({@link dev.baton.morsel.data.ColumnEncoding})
 * and read in place as a {@link dev.baton.morsel.data.ColumnPage}.
 */
package dev.baton.morsel.data;
