package org.calciteivm.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import org.calciteivm.server.IvmServer;
import org.calciteivm.server.auth.PasswordHash;
import org.calciteivm.server.auth.UsersFile;

/**
 * A calcite-ivm server on a free loopback port, over an in-memory database, that lets in the user
 * {@link #USER} with {@link #PASSWORD}, as {@code users add} and {@code serve --users} set it up.
 */
record TestServer(IvmServer server) implements AutoCloseable {
  static final String USER = "alice";
  static final String PASSWORD = "Sup3rSecret";

  /** Starts a server whose users file is written to {@code dir}. */
  static TestServer start(Path dir) throws IOException, SQLException {
    Path users = dir.resolve("users.txt");
    UsersFile.put(
        users, USER, PasswordHash.create(PASSWORD.toCharArray(), PasswordHash.DEFAULT_ITERATIONS));
    return new TestServer(IvmServer.builder(null).port(0).usersFile(users).start());
  }

  /** The URL of the README's example: no credentials, no authentication parameter. */
  String url() {
    return server.jdbcUrl();
  }

  @Override
  public void close() throws SQLException {
    server.close();
  }
}
