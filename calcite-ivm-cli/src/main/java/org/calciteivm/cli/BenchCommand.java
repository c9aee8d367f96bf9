package org.calciteivm.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.calciteivm.cli.bench.BenchReport;
import org.calciteivm.cli.bench.Benchmark;
import org.calciteivm.cli.bench.ChangeKind;
import org.calciteivm.cli.bench.Measurement;
import org.calciteivm.cli.bench.Timing;
import org.calciteivm.cli.bench.TpchViews;
import org.calciteivm.jdbc.RefreshMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code calcite-ivm bench}: TPC-H views refreshed incrementally against recomputed from scratch.
 *
 * <p>See {@link Benchmark} for what a run does; this command parses the options, shows progress and
 * writes the report ({@link BenchReport}): a CSV of every measurement, a markdown summary and PNG
 * plots. It exits with 1 if any refresh left a view different from its recompute.
 */
@Command(
    name = "bench",
    description = {
      "Benchmarks incremental refresh against full recompute on TPC-H views.",
      "",
      "Generates TPC-H data once per scale factor (cached in --data), then for each view,"
          + " refresh timing, refresh mode, kind and size of change: applies the change"
          + " (captured), refreshes the view under that ivm_refresh_mode, recomputes it from"
          + " scratch, checks both agree, and undoes the change. With --timing immediate the"
          + " view is maintained by the write itself, whose time then includes the maintenance."
          + " Writes measurements.csv, summary.md and plots to --out. Exits with 1 if a check"
          + " fails."
    })
final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--sf",
      paramLabel = "SF",
      defaultValue = "1",
      description = "TPC-H scale factor (default: ${DEFAULT-VALUE})")
  double scaleFactor;

  @Option(
      names = "--deltas",
      paramLabel = "FRACTIONS",
      split = ",",
      defaultValue = "0.0001,0.001,0.01,0.1",
      description = "change sizes as fractions of the orders (default: ${DEFAULT-VALUE})")
  List<Double> deltas;

  @Option(
      names = "--kinds",
      paramLabel = "KINDS",
      split = ",",
      defaultValue = "insert,append,delete,update,update_key",
      description =
          "kinds of change: insert, append, delete, update, update_key, update_one"
              + " (update_one updates one lineitem row whatever the size) (default:"
              + " ${DEFAULT-VALUE})")
  List<String> kinds;

  @Option(
      names = "--views",
      paramLabel = "VIEWS",
      split = ",",
      description =
          "views to run (default: all of q1,q3,q5,q6,q9,q10,q12,joined,minmax,distinct_keys,"
              + "count_distinct,agg_of_agg,q3_by_date,customer_orders,q4,q1_rollup,"
              + "top_customers,monthly_change)")
  List<String> views;

  @Option(
      names = "--modes",
      paramLabel = "MODES",
      split = ",",
      defaultValue = "auto",
      description =
          "ivm_refresh_mode values to run every cycle under, one after the other:"
              + " auto, incremental, full (default: ${DEFAULT-VALUE})")
  List<String> modes;

  @Option(
      names = "--timing",
      paramLabel = "TIMINGS",
      split = ",",
      defaultValue = "deferred",
      description =
          "refresh timings of the view to run every cycle with, one after the other: deferred"
              + " (REFRESH MATERIALIZED VIEW brings it up to date), immediate (every captured"
              + " write does, and its time includes the view's maintenance)"
              + " (default: ${DEFAULT-VALUE})")
  List<String> timings;

  @Option(
      names = "--reps",
      paramLabel = "N",
      defaultValue = "3",
      description =
          "recorded repetitions of each cycle, after a warm-up (default: ${DEFAULT-VALUE})")
  int reps;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "directory for the report (default: bench-results/<date>-sf<SF>)")
  Path out;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "directory of the generated TPC-H databases (default: ~/.cache/calcite-ivm)")
  Path data;

  @Override
  public Integer call() throws Exception {
    Benchmark.Options options = options();
    PrintWriter stdout = spec.commandLine().getOut();
    List<Measurement> measurements = new ArrayList<>();
    try (ProgressBar bar =
        new ProgressBarBuilder()
            .setTaskName("bench")
            .setInitialMax(options.cycles())
            .setStyle(ProgressBarStyle.ASCII)
            .setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err))
            .build()) {
      measurements.addAll(
          Benchmark.run(
              options,
              new Benchmark.Listener() {
                @Override
                public void phase(String description) {
                  bar.setExtraMessage(description);
                }

                @Override
                public void generating(String table, long done, long total) {
                  bar.setExtraMessage(
                      String.format(Locale.ROOT, "generating %s %d/%d", table, done, total));
                }

                @Override
                public void measured(Measurement m) {
                  bar.setExtraMessage(
                      String.join(
                          " ",
                          m.view(),
                          m.timing(),
                          m.requestedMode(),
                          m.kind(),
                          Double.toString(m.deltaFraction())));
                  bar.step();
                }
              }));
    }
    // the working copies are gone; their directory goes too if nothing else is in it
    Files.deleteIfExists(options.workDir());
    Path report = out != null ? out : defaultOut();
    BenchReport.write(measurements, BenchReport.Context.current(scaleFactor), report);
    long failed = measurements.stream().filter(m -> !m.correct()).count();
    stdout.printf("%d cycles measured; report in %s%n", measurements.size(), report);
    if (failed > 0) {
      spec.commandLine()
          .getErr()
          .printf("error: %d refreshes left a view different from its recompute%n", failed);
      return ExitCode.SOFTWARE;
    }
    return ExitCode.OK;
  }

  private Benchmark.Options options() {
    if (!(scaleFactor > 0)) {
      throw new ParameterException(spec.commandLine(), "--sf must be positive");
    }
    if (reps < 1) {
      throw new ParameterException(spec.commandLine(), "--reps must be at least 1");
    }
    for (double delta : deltas) {
      if (!(delta > 0 && delta <= 0.1)) {
        throw new ParameterException(
            spec.commandLine(), "--deltas must be fractions in (0, 0.1], got " + delta);
      }
    }
    List<ChangeKind> changeKinds = new ArrayList<>();
    for (String kind : kinds) {
      try {
        changeKinds.add(ChangeKind.ofLabel(kind));
      } catch (IllegalArgumentException e) {
        throw new ParameterException(
            spec.commandLine(),
            "unknown kind \""
                + kind
                + "\"; known: "
                + String.join(
                    ", ", Arrays.stream(ChangeKind.values()).map(ChangeKind::label).toList()));
      }
    }
    List<String> viewNames = views == null ? TpchViews.names() : views;
    for (String view : viewNames) {
      if (!TpchViews.ALL.containsKey(view)) {
        throw new ParameterException(
            spec.commandLine(),
            "unknown view \"" + view + "\"; known: " + String.join(", ", TpchViews.names()));
      }
    }
    List<RefreshMode> refreshModes = new ArrayList<>();
    for (String mode : modes) {
      RefreshMode refreshMode = refreshMode(mode);
      if (refreshModes.contains(refreshMode)) {
        throw new ParameterException(
            spec.commandLine(), "--modes names \"" + refreshMode.sqlValue() + "\" twice");
      }
      refreshModes.add(refreshMode);
    }
    List<Timing> refreshTimings = new ArrayList<>();
    for (String value : timings) {
      Timing timing = timing(value);
      if (refreshTimings.contains(timing)) {
        throw new ParameterException(
            spec.commandLine(), "--timing names \"" + timing.label() + "\" twice");
      }
      refreshTimings.add(timing);
    }
    Path dataDir =
        data != null ? data : Path.of(System.getProperty("user.home"), ".cache", "calcite-ivm");
    Path report = out != null ? out : defaultOut();
    return new Benchmark.Options(
        scaleFactor,
        deltas,
        changeKinds,
        viewNames,
        refreshModes,
        refreshTimings,
        reps,
        report.resolve("work"),
        dataDir);
  }

  /** The refresh mode a value of {@code --modes} names, as written in SQL (lower case). */
  private RefreshMode refreshMode(String mode) {
    for (RefreshMode m : RefreshMode.values()) {
      if (m.sqlValue().equals(mode)) {
        return m;
      }
    }
    throw new ParameterException(
        spec.commandLine(),
        "unknown mode \""
            + mode
            + "\"; known: "
            + String.join(
                ", ", Arrays.stream(RefreshMode.values()).map(RefreshMode::sqlValue).toList()));
  }

  /** The refresh timing a value of {@code --timing} names. */
  private Timing timing(String value) {
    try {
      return Timing.ofLabel(value);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(),
          "unknown timing \"" + value + "\"; known: " + String.join(", ", Timing.labels()));
    }
  }

  private Path defaultOut() {
    return Path.of("bench-results", LocalDate.now() + "-sf" + scaleFactor);
  }
}
