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
          new Measurement("q1", "insert", 0.0001, 1, 100, 2, 1.6, 1, 1000, 0.5, 200_000_001, true),
          // a name with a comma, a quote and a line break; zero times make the ratios not finite
          new Measurement("a,\"b\"", "in\nsert", 0.001, 2, 1, 1, 0, 0, 1, 1, 1, false),
          // a time that was never measured, and one too short to be measured
          new Measurement("b", "update", 0.1, 3, 7, 1e-9, 0, 123456.789, Double.NaN, 1, 1, true));

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
        .isEqualTo("b,update,0.1,3,7,0.000000001,0,123456.789,,1,1,true,,0.05670000051597,");
  }

  @Test
  void findsColumnsByName() throws IOException {
    String csv =
        "correct,view,kind,delta_fraction,rep,changed_rows,captured_dml_ms,plain_dml_ms,"
            + "refresh_ms,recompute_ms,noop_refresh_ms,peak_memory_bytes,extra\n"
            + "true,q1,insert,0.0001,1,100,2,1.6,1,1000,0.5,200000001,ignored\n";

    assertThat(MeasurementsCsv.read(new StringReader(csv))).containsExactly(MEASUREMENTS.get(0));
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
