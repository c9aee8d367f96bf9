package org.calciteivm.jdbc;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * The JDBC driver for {@code jdbc:ivm:duckdb:} (a private in-memory database) and {@code
 * jdbc:ivm:duckdb:<path>} (a database file). It behaves as DuckDB's own driver, plus materialized
 * views that are maintained incrementally.
 *
 * <p>Connection properties named {@code ivm_*} are calcite-ivm settings; every other property is
 * passed to DuckDB.
 */
public final class IvmDriver implements Driver {
  /** The URL prefix this driver accepts. */
  public static final String PREFIX = "jdbc:ivm:duckdb:";

  static {
    try {
      DriverManager.registerDriver(new IvmDriver());
    } catch (SQLException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  @Override
  public Connection connect(String url, Properties info) throws SQLException {
    if (!acceptsURL(url)) {
      return null;
    }
    Properties properties = info == null ? new Properties() : info;
    IvmSettings settings = IvmSettings.fromProperties(properties);
    Properties duckDb = new Properties();
    // a missing extension must fail at once: nothing can be downloaded where this runs
    duckDb.setProperty("autoinstall_known_extensions", "false");
    for (String name : properties.stringPropertyNames()) {
      if (!IvmSetting.isIvmName(name)) {
        duckDb.setProperty(name, properties.getProperty(name));
      }
    }
    IvmDatabase.Opened opened = IvmDatabase.open(url.substring(PREFIX.length()), duckDb);
    return new IvmConnection(opened.database(), opened.connection(), settings);
  }

  @Override
  public boolean acceptsURL(String url) {
    return url != null && url.startsWith(PREFIX);
  }

  @Override
  public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
    IvmSetting[] settings = IvmSetting.values();
    DriverPropertyInfo[] result = new DriverPropertyInfo[settings.length];
    for (int i = 0; i < settings.length; i++) {
      result[i] = new DriverPropertyInfo(settings[i].sqlName(), settings[i].defaultValue());
      result[i].choices = new String[] {"true", "false"};
    }
    return result;
  }

  @Override
  public int getMajorVersion() {
    return 0;
  }

  @Override
  public int getMinorVersion() {
    return 1;
  }

  @Override
  public boolean jdbcCompliant() {
    return false;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException("calcite-ivm does not log through java.util.logging");
  }
}
