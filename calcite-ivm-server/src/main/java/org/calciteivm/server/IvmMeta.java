package org.calciteivm.server;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.calcite.avatica.jdbc.JdbcMeta;
import org.calciteivm.jdbc.IvmSetting;
import org.calciteivm.server.types.RemoteJdbc;

/**
 * Avatica's server-side JDBC bridge over one calcite-ivm database: every remote connection is a
 * connection of the calcite-ivm driver, wrapped so that its results travel exactly ({@link
 * RemoteJdbc}).
 *
 * <p>A client's connection properties may only be calcite-ivm settings ({@code ivm_*}); every other
 * property the client sends (Avatica's own, {@code user}, DuckDB options) is dropped, so a remote
 * client cannot change how the server opens the database.
 */
final class IvmMeta extends JdbcMeta {
  private final String url;

  IvmMeta(String url) throws SQLException {
    super(url, new Properties());
    this.url = url;
  }

  @Override
  protected Connection createConnection(String url, Properties info) throws SQLException {
    Properties settings = new Properties();
    for (String name : info.stringPropertyNames()) {
      if (IvmSetting.isIvmName(name)) {
        settings.setProperty(name, info.getProperty(name));
      }
    }
    return RemoteJdbc.wrap(DriverManager.getConnection(this.url, settings));
  }

  /** The number of open client connections. */
  long openConnections() {
    return getConnectionCache().size();
  }

  /**
   * Closes every client connection: a transaction a client left open is rolled back. Returns the
   * errors of connections that failed to close, having tried all of them.
   */
  List<SQLException> closeAll() {
    List<SQLException> errors = new ArrayList<>();
    for (Map.Entry<String, Connection> entry : getConnectionCache().asMap().entrySet()) {
      Connection connection = entry.getValue();
      try {
        if (!connection.isClosed()) {
          if (!connection.getAutoCommit()) {
            connection.rollback();
          }
          connection.close();
        }
      } catch (SQLException e) {
        errors.add(e);
      }
      getConnectionCache().invalidate(entry.getKey());
    }
    return errors;
  }
}
