package org.calciteivm.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tests {@link MeasurementsCsv}: what it writes reads back as the same measurements. */
class MeasurementsCsvTest {
  @TempDir Path dir;

  private static final List<Measurement> MEASUREMENTS =
      List.of(
          new Measurement(
              "q1",
              "insert",
              0.0001,
              "auto",
              "deferred",
              1,
              100,
              2,
              1.6,
              1,
              0.75,
              "incremental",
              1000,
              0.5,
              200_000_001,
              true),
          // a name with a comma, a quote and a line break; zero times make the ratios not finite
          new Measurement(
              "a,\"b\"",
              "in\nsert",
              0.001,
              "full",
              "immediate",
              2,
              1,
              1,
              0,
              0,
              0,
              "full",
              1,
              1,
              1,
              false),
          // a time that was never measured, and one too short to be measured; a refresh that
          // found nothing pending
          new Measurement(
              "b",
              "update",
              0.1,
              "incremental",
              "immediate",
              3,
              7,
              1e-9,
              0,
              123456.789,
              0,
              "none",
              Double.NaN,
              1,
              1,
              true));

  @Test
  void readsBackWhatItWrote() throws IOException {
    Path file = dir.resolve(BenchReport.CSV_FILE);
    MeasurementsCsv.write(MEASUREMENTS, file);

    assertThat(MeasurementsCsv.read(file)).isEqualTo(MEASUREMENTS);
    assertThat(Files.readString(file)).isEqualTo(MeasurementsCsv.toCsv(MEASUREMENTS));
  }

  @Test
  void writesPlainDecimalsAndEmptyFieldsForWhatIsNotFinite() {
    List<String> rows = MeasurementsCsv.toCsv(MEASUREMENTS.subList(2, 3)).lines().toList();

    assertThat(rows.get(0)).isEqualTo(String.join(",", MeasurementsCsv.HEADER));
    assertThat(rows.get(1))
        .isEqualTo(
            "b,update,0.1,incremental,immediate,3,7,0.000000001,0,123456.789,0,123456.789,none,,1,1,"
                + "true,,"
                + "0.05670000051597,");
  }

  @Test
  void findsColumnsByName() throws IOException {
    String csv =
        "correct,mode,view,kind,delta_fraction,rep,changed_rows,captured_dml_ms,plain_dml_ms,"
            + "refresh_ms,recompute_ms,noop_refresh_ms,peak_memory_bytes,merge_ms,extra,"
            + "requested_mode,overhead_ms\n"
            + "true,incremental,q1,insert,0.0001,1,100,2,1.6,1,1000,0.5,200000001,0.75,ignored,"
            + "auto,99\n";

    assertThat(MeasurementsCsv.read(new StringReader(csv))).containsExactly(MEASUREMENTS.get(0));
  }

  @Test
  void readsAFileWrittenBeforeTheRefreshModesAsIncrementalRefreshes() throws IOException {
    String csv =
        "view,kind,delta_fraction,rep,changed_rows,captured_dml_ms,plain_dml_ms,refresh_ms,"
            + "recompute_ms,noop_refresh_ms,peak_memory_bytes,correct,speedup,rows_per_second,"
            + "capture_overhead\n"
            + "q1,insert,0.0001,1,100,2,1.6,1,1000,0.5,200000001,true,1000,100000,1.25\n";

    List<Measurement> read = MeasurementsCsv.read(new StringReader(csv));

    assertThat(read)
        .containsExactly(
            new Measurement(
                "q1",
                "insert",
                0.0001,
                "incremental",
                "deferred",
                1,
                100,
                2,
                1.6,
                1,
                Double.NaN,
                "incremental",
                1000,
                0.5,
                200_000_001,
                true));
    assertThat(read.get(0).overheadMillis()).isNaN();
    // written again: the merge time and the overhead are unknown, so empty
    assertThat(MeasurementsCsv.toCsv(read))
        .endsWith(
            "\nq1,insert,0.0001,incremental,deferred,1,100,2,1.6,1,,,incremental,1000,0.5,"
                + "200000001,true,1000,100000,1.25\n");
  }

  @Test
  void readsAFileWrittenBeforeTheTimingsAsDeferredViews() throws IOException {
    // written with the refresh modes, before the timings
    String csv =
        "view,kind,delta_fraction,requested_mode,rep,changed_rows,captured_dml_ms,plain_dml_ms,"
            + "refresh_ms,merge_ms,overhead_ms,mode,recompute_ms,noop_refresh_ms,"
            + "peak_memory_bytes,correct,speedup,rows_per_second,capture_overhead\n"
            + "q1,insert,0.0001,auto,1,100,2,1.6,1,0.75,0.25,incremental,1000,0.5,200000001,true,"
            + "1000,100000,1.25\n";

    List<Measurement> read = MeasurementsCsv.read(new StringReader(csv));

    assertThat(read).containsExactly(MEASUREMENTS.get(0));
    assertThat(read.get(0).timing()).isEqualTo("deferred");
    // written again: with the column, after requested_mode
    assertThat(MeasurementsCsv.toCsv(read))
        .endsWith(
            "\nq1,insert,0.0001,auto,deferred,1,100,2,1.6,1,0.75,0.25,incremental,1000,0.5,"
                + "200000001,true,1000,100000,1.25\n");
  }

  @Test
  void refusesATimingThatIsNoneOfTheOptionsValues() {
    String csv =
        MeasurementsCsv.toCsv(MEASUREMENTS.subList(0, 1)).replace(",deferred,", ",every 5s,");

    assertThatThrownBy(() -> MeasurementsCsv.read(new StringReader(csv)))
        .isInstanceOf(IOException.class)
        .hasMessage("row 1: timing is not one of deferred, immediate: \"every 5s\"");
  }

  @Test
  void refusesAModeThatIsNoneOfTheSettingsValues() {
    String csv =
        MeasurementsCsv.toCsv(MEASUREMENTS.subList(0, 1)).replace(",incremental,", ",partial,");
    String requested =
        MeasurementsCsv.toCsv(MEASUREMENTS.subList(0, 1)).replace(",auto,", ",Auto,");

    assertThatThrownBy(() -> MeasurementsCsv.read(new StringReader(csv)))
        .isInstanceOf(IOException.class)
        .hasMessage("row 1: mode is not one of incremental, full, none: \"partial\"");
    assertThatThrownBy(() -> MeasurementsCsv.read(new StringReader(requested)))
        .isInstanceOf(IOException.class)
        .hasMessage("row 1: requested_mode is not one of auto, incremental, full: \"Auto\"");
  }

  @Test
  void refusesAFileWithoutEveryMeasuredColumn() {
    String csv = "view,kind,rep\nq1,insert,1\n";

    assertThatThrownBy(() -> MeasurementsCsv.read(new StringReader(csv)))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("not a file of measurements: no column delta_fraction,");
  }

  @Test
  void refusesAFieldThatIsNotItsColumnsType() {
    String csv = MeasurementsCsv.toCsv(MEASUREMENTS.subList(0, 1)).replace(",true,", ",yes,");

    assertThatThrownBy(() -> MeasurementsCsv.read(new StringReader(csv)))
        .isInstanceOf(IOException.class)
        .hasMessage("row 1: not true or false: \"yes\"");
  }
}
