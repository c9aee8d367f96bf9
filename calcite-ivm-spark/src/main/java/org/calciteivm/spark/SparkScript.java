package org.calciteivm.spark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Runs a script of SQL statements against a local Spark session with an Iceberg catalog {@code
 * lake}: {@code bin/calcite-ivm spark script.sql}, or {@code spark-submit --class
 * org.calciteivm.spark.SparkScript} on a cluster. Besides Spark SQL it understands:
 *
 * <ul>
 *   <li>{@code CREATE MATERIALIZED VIEW name AS query}
 *   <li>{@code REFRESH MATERIALIZED VIEW name} and {@code REFRESH MATERIALIZED VIEW name FULL}
 *   <li>{@code EXPLAIN REFRESH name}
 *   <li>{@code DROP MATERIALIZED VIEW name}
 * </ul>
 *
 * <p>After a view is created or refreshed, a temporary view named as the last part of its name
 * reads it ({@code SELECT * FROM totals} for {@code lake.db.totals}). Statements end with {@code
 * ;}; queries print their rows.
 *
 * <p>Arguments: the script's path, then optionally {@code --warehouse DIR} (the Iceberg Hadoop
 * catalog's directory; by default {@code ./warehouse}) and {@code --master URL} (by default {@code
 * local[2]}, unless spark-submit set one).
 */
public final class SparkScript {
  private static final Pattern CREATE =
      Pattern.compile("(?is)CREATE\\s+MATERIALIZED\\s+VIEW\\s+(\\S+)\\s+AS\\s+(.*)");
  private static final Pattern REFRESH =
      Pattern.compile("(?is)REFRESH\\s+MATERIALIZED\\s+VIEW\\s+(\\S+)(\\s+FULL)?");
  private static final Pattern EXPLAIN = Pattern.compile("(?is)EXPLAIN\\s+REFRESH\\s+(\\S+)");
  private static final Pattern DROP =
      Pattern.compile("(?is)DROP\\s+MATERIALIZED\\s+VIEW\\s+(\\S+)");

  private final SparkSession spark;
  private final SparkIvm ivm;

  SparkScript(SparkSession spark) {
    this.spark = spark;
    this.ivm = SparkIvm.on(spark);
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || args[0].startsWith("-")) {
      System.err.println("usage: SparkScript SCRIPT.sql [--warehouse DIR] [--master URL]");
      System.exit(2);
    }
    String warehouse = "warehouse";
    String master = null;
    for (int i = 1; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--warehouse" -> warehouse = args[i + 1];
        case "--master" -> master = args[i + 1];
        default -> {
          System.err.println("unknown option " + args[i]);
          System.exit(2);
        }
      }
    }
    SparkSession.Builder builder =
        SparkSession.builder()
            .appName("calcite-ivm")
            .config("spark.ui.enabled", "false")
            .config(
                "spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
            .config("spark.sql.catalog.lake", "org.apache.iceberg.spark.SparkCatalog")
            .config("spark.sql.catalog.lake.type", "hadoop")
            .config(
                "spark.sql.catalog.lake.warehouse", Path.of(warehouse).toAbsolutePath().toString());
    if (master != null) {
      builder.master(master);
    } else if (!System.getProperties().containsKey("spark.master")) {
      builder.master("local[2]").config("spark.sql.shuffle.partitions", "4");
    }
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    int status = 0;
    try {
      new SparkScript(spark).run(Files.readString(Path.of(args[0])));
    } catch (Exception e) {
      System.err.println("error: " + e.getMessage());
      status = 1;
    } finally {
      spark.stop();
    }
    System.exit(status);
  }

  /** Runs the statements of {@code script} in order; the first that fails stops it. */
  void run(String script) throws Exception {
    for (String statement : statements(script)) {
      System.out.println("> " + statement.replaceAll("\\s+", " "));
      Matcher m;
      if ((m = CREATE.matcher(statement)).matches()) {
        ivm.create(m.group(1), m.group(2));
        readable(m.group(1));
      } else if ((m = REFRESH.matcher(statement)).matches()) {
        Refresh refresh =
            m.group(2) == null ? ivm.refresh(m.group(1)) : ivm.refreshFull(m.group(1));
        System.out.println(
            refresh.full()
                ? "recomputed in " + refresh.millis() + " ms"
                : refresh.changedTables().isEmpty()
                    ? "up to date"
                    : "refreshed ("
                        + refresh.merge()
                        + ", changes of "
                        + refresh.changedTables()
                        + ") in "
                        + refresh.millis()
                        + " ms");
        readable(m.group(1));
      } else if ((m = EXPLAIN.matcher(statement)).matches()) {
        System.out.print(ivm.explain(m.group(1)));
      } else if ((m = DROP.matcher(statement)).matches()) {
        ivm.drop(m.group(1));
        spark.sql("DROP VIEW IF EXISTS " + lastPart(m.group(1)));
      } else {
        Dataset<Row> result = spark.sql(statement);
        if (!result.isEmpty() || result.columns().length > 0) {
          result.show(50, false);
        }
      }
    }
  }

  /** A temporary view, named as the view's last name part, that reads it. */
  private void readable(String view) throws Exception {
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW " + lastPart(view) + " AS " + ivm.readSql(view));
  }

  private static String lastPart(String name) {
    String[] parts = name.split("\\.");
    return SparkSchemas.quote(parts[parts.length - 1].replace("`", ""));
  }

  /** The statements of {@code script}: split at semicolons outside quotes, comments dropped. */
  static List<String> statements(String script) {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < script.length(); i++) {
      char c = script.charAt(i);
      if (quote == 0 && c == '-' && i + 1 < script.length() && script.charAt(i + 1) == '-') {
        while (i < script.length() && script.charAt(i) != '\n') {
          i++;
        }
        current.append('\n');
        continue;
      }
      if (quote == 0 && (c == '\'' || c == '"' || c == '`')) {
        quote = c;
      } else if (quote == c) {
        quote = 0;
      }
      if (quote == 0 && c == ';') {
        add(statements, current);
      } else {
        current.append(c);
      }
    }
    add(statements, current);
    return statements;
  }

  private static void add(List<String> statements, StringBuilder current) {
    String statement = current.toString().trim();
    if (!statement.isEmpty()) {
      statements.add(statement);
    }
    current.setLength(0);
  }
}
