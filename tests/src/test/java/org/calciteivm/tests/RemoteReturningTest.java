package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.calciteivm.server.IvmServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A captured write with RETURNING prepared through the server: Avatica describes the statement when
 * it prepares it, then each execution returns the rows the write wrote, and the view reading the
 * table stays exact.
 */
class RemoteReturningTest {
  @Test
  void preparedWritesWithReturningReturnTheirRowsRemotely(@TempDir Path dir) throws SQLException {
    try (IvmServer server = RemoteServer.start(dir.resolve("returning.duckdb"));
        Connection remote = RemoteServer.connect(server)) {
      try (Statement s = remote.createStatement()) {
        s.execute("CREATE SEQUENCE ids");
        s.execute(
            "CREATE TABLE tasks (id INTEGER DEFAULT nextval('ids'), name VARCHAR, done BOOLEAN"
                + " DEFAULT false)");
        s.execute(
            "CREATE MATERIALIZED VIEW open_tasks AS SELECT count(*) AS n FROM tasks WHERE NOT done");
      }
      List<String> returned = new ArrayList<>();
      try (PreparedStatement insert =
          remote.prepareStatement("INSERT INTO tasks (name) VALUES (?) RETURNING id, name")) {
        assertThat(insert.getMetaData().getColumnCount()).isEqualTo(2);
        for (String name : List.of("write", "test")) {
          insert.setString(1, name);
          try (ResultSet rs = insert.executeQuery()) {
            while (rs.next()) {
              returned.add(rs.getInt(1) + " " + rs.getString(2));
            }
          }
        }
      }
      try (PreparedStatement finish =
          remote.prepareStatement("UPDATE tasks SET done = true WHERE id = ? RETURNING name")) {
        finish.setInt(1, 1);
        try (ResultSet rs = finish.executeQuery()) {
          assertThat(rs.next()).isTrue();
          returned.add("done " + rs.getString(1));
        }
      }
      assertThat(returned).containsExactly("1 write", "2 test", "done write");
      try (Statement s = remote.createStatement()) {
        s.execute("REFRESH MATERIALIZED VIEW open_tasks");
        try (ResultSet rs = s.executeQuery("SELECT n FROM open_tasks")) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getLong(1)).isEqualTo(1);
        }
      }
    }
  }
}
