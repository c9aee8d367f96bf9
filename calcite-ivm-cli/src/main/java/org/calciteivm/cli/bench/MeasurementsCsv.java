package org.calciteivm.cli.bench;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVPrinter;
import org.apache.commons.csv.CSVRecord;

/**
 * The measurements as CSV ({@value BenchReport#CSV_FILE}): a header row, then one row per
 * measurement in the given order, with the derived refresh overhead, speedup, rows per second and
 * capture overhead.
 *
 * <p>{@code overhead_ms} is refresh_ms − merge_ms. Files written before the refresh modes have no
 * {@code requested_mode}, {@code mode} and {@code merge_ms}: every refresh then was incremental, so
 * {@link #read} reads them as {@code incremental} refreshes under {@code incremental} whose merge
 * time is unknown (NaN, an empty field when written again). Files written before the refresh
 * timings have no {@code timing}: every view then was deferred, so they read as {@code deferred}.
 *
 * <p>Fields are quoted as RFC 4180 says (Apache Commons CSV, {@link CSVFormat#RFC4180}) and rows
 * end with {@code \n}. Numbers are plain decimals ({@code 0.001}, not {@code 1.0E-3}) that read
 * back as the same double; a value that is not finite (a ratio over a zero time) is an empty field,
 * which {@link #read} reads as NaN.
 */
public final class MeasurementsCsv {
  /**
   * One column of the file: its header and how a measurement's field is written. A new column is
   * one more entry in {@link #COLUMNS}.
   *
   * @param derived whether the field is computed from others, and so not read back
   * @param absent the field read from a file without the column (written before it existed), or
   *     null if a file must have it
   */
  private record Column(
      String name, Function<Measurement, String> field, boolean derived, String absent) {
    Column(String name, Function<Measurement, String> field) {
      this(name, field, false, null);
    }

    static Column derived(String name, Function<Measurement, String> field) {
      return new Column(name, field, true, null);
    }

    static Column since(String name, Function<Measurement, String> field, String absent) {
      return new Column(name, field, false, absent);
    }
  }

  /** The {@code ivm_refresh_mode} values a cycle can run under. */
  private static final List<String> REQUESTED_MODES = List.of("auto", "incremental", "full");

  /** What a refresh can have done. */
  private static final List<String> MODES = List.of("incremental", "full", Measurement.NO_REFRESH);

  /** A refresh before the refresh modes existed: incremental. */
  private static final String BEFORE_MODES = "incremental";

  /** A view before the refresh timings existed: deferred. */
  private static final String BEFORE_TIMINGS = Timing.DEFERRED.label();

  private static final List<Column> COLUMNS =
      List.of(
          new Column("view", Measurement::view),
          new Column("kind", Measurement::kind),
          new Column("delta_fraction", m -> number(m.deltaFraction())),
          Column.since("requested_mode", Measurement::requestedMode, BEFORE_MODES),
          Column.since("timing", Measurement::timing, BEFORE_TIMINGS),
          new Column("rep", m -> Integer.toString(m.rep())),
          new Column("changed_rows", m -> Long.toString(m.changedRows())),
          new Column("captured_dml_ms", m -> number(m.capturedDmlMillis())),
          new Column("plain_dml_ms", m -> number(m.plainDmlMillis())),
          new Column("refresh_ms", m -> number(m.refreshMillis())),
          Column.since("merge_ms", m -> number(m.mergeMillis()), ""),
          Column.derived("overhead_ms", m -> number(m.overheadMillis())),
          Column.since("mode", Measurement::mode, BEFORE_MODES),
          new Column("recompute_ms", m -> number(m.recomputeMillis())),
          new Column("noop_refresh_ms", m -> number(m.noopRefreshMillis())),
          new Column("peak_memory_bytes", m -> Long.toString(m.peakMemoryBytes())),
          new Column("correct", m -> Boolean.toString(m.correct())),
          Column.derived("speedup", m -> number(m.speedup())),
          Column.derived("rows_per_second", m -> number(m.rowsPerSecond())),
          Column.derived("capture_overhead", m -> number(m.captureOverhead())));

  /** The header of the file, in order. */
  public static final List<String> HEADER = COLUMNS.stream().map(Column::name).toList();

  /** RFC 4180 with {@code \n} after each row rather than CRLF, as the file has always been. */
  private static final CSVFormat WRITE_FORMAT =
      CSVFormat.RFC4180.builder().setRecordSeparator('\n').get();

  /** RFC 4180 whose first row names the columns, so that fields are read by name. */
  private static final CSVFormat READ_FORMAT =
      CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get();

  private MeasurementsCsv() {}

  /**
   * Writes measurements as CSV.
   *
   * @param measurements the measurements, written in this order
   * @param out where the text goes; not closed
   * @throws IOException if {@code out} cannot be written
   */
  public static void write(List<Measurement> measurements, Appendable out) throws IOException {
    // Not closed: closing a CSVPrinter closes what it writes to, which belongs to the caller.
    CSVPrinter printer = new CSVPrinter(out, WRITE_FORMAT);
    printer.printRecord(HEADER);
    for (Measurement m : measurements) {
      printer.printRecord(COLUMNS.stream().map(c -> c.field().apply(m)));
    }
    printer.flush();
  }

  /**
   * Writes measurements as a UTF-8 CSV file, replacing a file of that name.
   *
   * @param measurements the measurements, written in this order
   * @param file the file
   * @throws IOException if the file cannot be written
   */
  public static void write(List<Measurement> measurements, Path file) throws IOException {
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      write(measurements, out);
    }
  }

  /**
   * The measurements as CSV text.
   *
   * @param measurements the measurements, written in this order
   * @return the CSV text
   */
  public static String toCsv(List<Measurement> measurements) {
    StringBuilder csv = new StringBuilder();
    try {
      write(measurements, csv);
    } catch (IOException e) {
      throw new UncheckedIOException("a StringBuilder cannot fail to append", e);
    }
    return csv.toString();
  }

  /**
   * Reads measurements written by {@link #write}: the columns are found by their names, the derived
   * ones (overhead, speedup, rows per second, capture overhead) are computed again rather than
   * read. A file without the columns of the refresh modes (written before them) reads as
   * incremental refreshes of unknown merge time, one without the column of the timings as deferred
   * views.
   *
   * @param in the CSV text; not closed
   * @return the measurements in the order of the rows
   * @throws IOException if {@code in} cannot be read, or is not CSV with every measured column
   */
  public static List<Measurement> read(Reader in) throws IOException {
    CSVParser parser = READ_FORMAT.parse(in);
    List<String> missing =
        COLUMNS.stream()
            .filter(
                c ->
                    !c.derived()
                        && c.absent() == null
                        && !parser.getHeaderNames().contains(c.name()))
            .map(Column::name)
            .toList();
    if (!missing.isEmpty()) {
      throw new IOException("not a file of measurements: no column " + String.join(", ", missing));
    }
    List<Measurement> measurements = new ArrayList<>();
    for (CSVRecord row : parser) {
      try {
        measurements.add(measurement(row));
      } catch (IllegalArgumentException e) {
        throw new IOException("row " + row.getRecordNumber() + ": " + e.getMessage(), e);
      }
    }
    return measurements;
  }

  /**
   * Reads a CSV file of measurements written by {@link #write}.
   *
   * @param file the file, UTF-8
   * @return the measurements in the order of the rows
   * @throws IOException if the file cannot be read, or is not CSV with every measured column
   */
  public static List<Measurement> read(Path file) throws IOException {
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return read(in);
    }
  }

  private static Measurement measurement(CSVRecord row) {
    return new Measurement(
        row.get("view"),
        row.get("kind"),
        parseNumber(row.get("delta_fraction")),
        parseOneOf("requested_mode", field(row, "requested_mode"), REQUESTED_MODES),
        parseOneOf("timing", field(row, "timing"), Timing.labels()),
        Integer.parseInt(row.get("rep")),
        Long.parseLong(row.get("changed_rows")),
        parseNumber(row.get("captured_dml_ms")),
        parseNumber(row.get("plain_dml_ms")),
        parseNumber(row.get("refresh_ms")),
        parseNumber(field(row, "merge_ms")),
        parseOneOf("mode", field(row, "mode"), MODES),
        parseNumber(row.get("recompute_ms")),
        parseNumber(row.get("noop_refresh_ms")),
        Long.parseLong(row.get("peak_memory_bytes")),
        parseBoolean(row.get("correct")));
  }

  /** A row's field of a column, or the column's value for files without it. */
  private static String field(CSVRecord row, String name) {
    if (row.isMapped(name)) {
      return row.get(name);
    }
    return COLUMNS.stream()
        .filter(c -> c.name().equals(name))
        .map(Column::absent)
        .findFirst()
        .orElseThrow();
  }

  /** One of a column's values, as written: a mode is a word of the SQL setting, not a label. */
  private static String parseOneOf(String column, String field, List<String> values) {
    if (!values.contains(field)) {
      throw new IllegalArgumentException(
          column + " is not one of " + String.join(", ", values) + ": \"" + field + "\"");
    }
    return field;
  }

  /** A number for the CSV: a plain decimal, or empty if not finite. */
  private static String number(double value) {
    return Double.isFinite(value) ? ReportFormats.plain(value) : "";
  }

  /** A number read back: an empty field is a value that was not finite. */
  private static double parseNumber(String field) {
    return field.isEmpty() ? Double.NaN : Double.parseDouble(field);
  }

  /** Strictly {@code true} or {@code false}: {@link Boolean#parseBoolean} reads anything else. */
  private static boolean parseBoolean(String field) {
    return switch (field) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("not true or false: \"" + field + "\"");
    };
  }
}
