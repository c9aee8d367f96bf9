package org.calciteivm.jdbc;

import com.google.common.collect.ImmutableMap;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;
import java.util.Properties;
import org.calciteivm.core.JoinStrategy;

/** The values of every {@link IvmSetting} for one connection; immutable. */
public final class IvmSettings {
  private final ImmutableMap<IvmSetting, String> values;

  private IvmSettings(Map<IvmSetting, String> values) {
    this.values = ImmutableMap.copyOf(values);
  }

  /** Every setting at its default. */
  public static IvmSettings defaults() {
    Map<IvmSetting, String> values = new EnumMap<>(IvmSetting.class);
    for (IvmSetting setting : IvmSetting.values()) {
      values.put(setting, setting.defaultValue());
    }
    return new IvmSettings(values);
  }

  /**
   * Defaults overridden by the {@code ivm_*} JDBC properties; an unknown {@code ivm_} name or an
   * invalid value fails.
   */
  public static IvmSettings fromProperties(Properties properties) throws SQLException {
    IvmSettings settings = defaults();
    for (String name : properties.stringPropertyNames()) {
      if (IvmSetting.isIvmName(name)) {
        settings = settings.with(IvmSetting.of(name), properties.getProperty(name));
      }
    }
    return settings;
  }

  /** A copy with {@code setting} set to {@code value} (checked and normalized). */
  public IvmSettings with(IvmSetting setting, String value) throws SQLException {
    Map<IvmSetting, String> copy = new EnumMap<>(values);
    copy.put(setting, setting.normalize(value));
    return new IvmSettings(copy);
  }

  /** A copy with {@code setting} back at its default. */
  public IvmSettings reset(IvmSetting setting) {
    Map<IvmSetting, String> copy = new EnumMap<>(values);
    copy.put(setting, setting.defaultValue());
    return new IvmSettings(copy);
  }

  /** The value of a boolean setting. */
  public boolean isEnabled(IvmSetting setting) {
    return Boolean.parseBoolean(values.get(setting));
  }

  /** The value of {@link IvmSetting#JOIN_STRATEGY}. */
  public JoinStrategy joinStrategy() {
    return JoinStrategy.ofSqlValue(values.get(IvmSetting.JOIN_STRATEGY));
  }

  /** The value of {@link IvmSetting#REFRESH_MODE}. */
  public RefreshMode refreshMode() {
    return RefreshMode.ofSqlValue(values.get(IvmSetting.REFRESH_MODE));
  }

  /** The value of {@code setting} as text. */
  public String get(IvmSetting setting) {
    return values.get(setting);
  }
}
