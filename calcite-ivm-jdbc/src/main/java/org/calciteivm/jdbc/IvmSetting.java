package org.calciteivm.jdbc;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.calciteivm.core.JoinStrategy;

/**
 * The settings a user can change with {@code SET ivm_<name> = value}, {@code RESET ivm_<name>} or a
 * JDBC connection property of the same name.
 */
public enum IvmSetting {
  /**
   * When every pending change of a projection or filter view is an insert, append the new rows
   * directly and skip the consolidation and the precise delete (reference: append-only.md).
   */
  SKIP_PROJECTION_DELETE("ivm_skip_projection_delete", "true"),

  /**
   * When every pending change of an aggregate view is an insert, merge without the branch that
   * deletes groups whose row count reached zero (no group can lose rows).
   */
  SKIP_AGGREGATE_DELETE("ivm_skip_aggregate_delete", "true"),

  /**
   * When every pending change of a view with MIN or MAX is an insert, fold the new values into the
   * stored ones with LEAST and GREATEST instead of recomputing the affected groups.
   */
  MINMAX_INCREMENTAL("ivm_minmax_incremental", "true"),

  /**
   * How the delta of a join view is expanded: {@code auto}, {@code inclusion_exclusion} or {@code
   * telescoping} (see {@link JoinStrategy}).
   */
  JOIN_STRATEGY(
      "ivm_join_strategy",
      JoinStrategy.AUTO.sqlValue(),
      Arrays.stream(JoinStrategy.values()).map(JoinStrategy::sqlValue).toList()),

  /**
   * Whether a refresh applies the change ({@code incremental}), recomputes the view ({@code full}),
   * or chooses per refresh from the costs of the view's past refreshes ({@code auto}).
   */
  REFRESH_MODE(
      "ivm_refresh_mode",
      RefreshMode.AUTO.sqlValue(),
      Arrays.stream(RefreshMode.values()).map(RefreshMode::sqlValue).toList());

  private final String sqlName;
  private final String defaultValue;
  private final List<String> allowedValues;

  IvmSetting(String sqlName, String defaultValue) {
    this(sqlName, defaultValue, Booleans.VALUES);
  }

  IvmSetting(String sqlName, String defaultValue, List<String> allowedValues) {
    this.sqlName = sqlName;
    this.defaultValue = defaultValue;
    this.allowedValues = allowedValues;
  }

  /** The name used in SQL and as a JDBC property, such as {@code ivm_skip_projection_delete}. */
  public String sqlName() {
    return sqlName;
  }

  /** The value in force until the user changes it. */
  public String defaultValue() {
    return defaultValue;
  }

  /** Whether {@code name} is in the namespace of calcite-ivm settings, known or not. */
  public static boolean isIvmName(String name) {
    return name.toLowerCase(Locale.ROOT).startsWith("ivm_");
  }

  /** Finds the setting called {@code name}, ignoring case. */
  public static Optional<IvmSetting> byName(String name) {
    return Arrays.stream(values()).filter(s -> s.sqlName.equalsIgnoreCase(name)).findFirst();
  }

  /** Finds the setting called {@code name} or fails with a message listing the known ones. */
  public static IvmSetting of(String name) throws SQLException {
    Optional<IvmSetting> setting = byName(name);
    if (setting.isEmpty()) {
      throw new SQLException(
          "unknown setting \""
              + name
              + "\"; known settings: "
              + String.join(", ", Arrays.stream(values()).map(IvmSetting::sqlName).toList()),
          "42704");
    }
    return setting.get();
  }

  /** Checks and normalizes a value given by the user for this setting. */
  public String normalize(String value) throws SQLException {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (v.length() >= 2 && v.startsWith("'") && v.endsWith("'")) {
      v = v.substring(1, v.length() - 1);
    }
    if (allowedValues == Booleans.VALUES) {
      switch (v) {
        case "on", "1":
          v = "true";
          break;
        case "off", "0":
          v = "false";
          break;
        default:
          break;
      }
    }
    if (!allowedValues.contains(v)) {
      throw new SQLException(
          "invalid value \""
              + value
              + "\" for setting "
              + sqlName
              + ": expected "
              + String.join(" or ", allowedValues),
          "22023");
    }
    return v;
  }

  /** The values of a boolean setting (a holder: an enum's constructor cannot read its statics). */
  private static final class Booleans {
    static final List<String> VALUES = List.of("true", "false");
  }
}
