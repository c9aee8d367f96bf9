package org.calciteivm.tests;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import org.calciteivm.server.IvmServer;

/** Starts calcite-ivm's Avatica server in-process on a free loopback port, for remote suites. */
final class RemoteServer {
  private RemoteServer() {}

  /** A server without authentication over the database file {@code database}. */
  static IvmServer start(Path database) throws SQLException {
    return IvmServer.builder(database).port(0).start();
  }

  /** Opens a remote connection through Avatica's JDBC driver, with {@code properties}. */
  static Connection connect(IvmServer server, Properties properties) throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl(), properties);
  }

  /** Opens a remote connection through Avatica's JDBC driver. */
  static Connection connect(IvmServer server) throws SQLException {
    return connect(server, new Properties());
  }
}
