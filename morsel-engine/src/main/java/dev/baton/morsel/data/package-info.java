/** Columnar page files: the engine's input format, written once and scanned in page-range morsels. */
package dev.baton.morsel.data;
