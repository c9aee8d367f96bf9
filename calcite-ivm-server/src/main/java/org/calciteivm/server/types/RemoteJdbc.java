package org.calciteivm.server.types;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Calendar;

/**
 * Wraps a connection of the calcite-ivm driver so that every result it produces, and the metadata
 * of every statement it prepares, presents its columns as {@link RemoteType}s: what Avatica's
 * server ({@code JdbcMeta}) reads from it is then something its protobuf serialization carries
 * exactly.
 *
 * <p>The wrappers are dynamic proxies: JDBC's interfaces are large, and all but a handful of
 * methods pass through unchanged. A proxy forwards every call to the wrapped object, wraps the
 * statements, result sets and metadata it returns, and in result sets replaces the getters that
 * Avatica uses to read values ({@code getObject}, {@code getDate}, {@code getTimestamp}, {@code
 * getBigDecimal}, {@code getBytes}, and {@code getDouble} and {@code getFloat}, which return 0
 * rather than DuckDB's NaN for NULL). Statements report an update count of 0, not DuckDB's -1,
 * after a statement that has neither a result set nor a count.
 */
public final class RemoteJdbc {
  private RemoteJdbc() {}

  /** Wraps {@code connection}. */
  public static Connection wrap(Connection connection) {
    return proxy(Connection.class, new Forwarding(connection));
  }

  /** Wraps {@code resultSet}, which must be positioned before its first row. */
  public static ResultSet wrap(ResultSet resultSet) throws SQLException {
    return proxy(
        ResultSet.class, new Results(resultSet, RemoteColumns.of(resultSet.getMetaData())));
  }

  private static <T> T proxy(Class<T> type, InvocationHandler handler) {
    return type.cast(
        Proxy.newProxyInstance(RemoteJdbc.class.getClassLoader(), new Class<?>[] {type}, handler));
  }

  /** Calls {@code method} on {@code target}, throwing what it throws. */
  private static Object call(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** Wraps what the JDBC object it forwards to returns. */
  private static Object wrapResult(Object result) throws SQLException {
    if (result instanceof ResultSet resultSet) {
      return wrap(resultSet);
    }
    if (result instanceof ResultSetMetaData metaData) {
      return RemoteColumns.of(metaData);
    }
    if (result instanceof PreparedStatement statement) {
      return proxy(PreparedStatement.class, new Forwarding(statement));
    }
    if (result instanceof Statement statement) {
      return proxy(Statement.class, new Forwarding(statement));
    }
    if (result instanceof DatabaseMetaData metaData) {
      return proxy(DatabaseMetaData.class, new Forwarding(metaData));
    }
    return result;
  }

  /** Forwards to a connection, statement or database metadata and wraps what it returns. */
  private record Forwarding(Object target) implements InvocationHandler {
    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      if (method.getName().equals("unwrap") || method.getName().equals("isWrapperFor")) {
        // Callers asking for the driver's own classes get them; the proxy hides nothing else.
        return call(target, method, args);
      }
      if (method.getName().equals("getConnection") && method.getReturnType() == Connection.class) {
        return proxy(Connection.class, new Forwarding(call(target, method, args)));
      }
      if (method.getName().equals("getUpdateCount") && target instanceof Statement statement) {
        // DuckDB answers -1 after a statement without a result set or count (DDL, SET, BEGIN);
        // Avatica reads -1 as "a result set follows" and fails. JDBC's answer there is 0.
        int count = statement.getUpdateCount();
        return count < 0 && statement.getResultSet() == null ? 0 : count;
      }
      return wrapResult(call(target, method, args));
    }
  }

  /** Forwards to a result set, reading values as its columns' {@link RemoteType}s say. */
  private record Results(ResultSet target, RemoteColumns columns) implements InvocationHandler {
    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      int arity = args == null ? 0 : args.length;
      switch (method.getName()) {
        case "getMetaData":
          return columns;
        case "getObject":
          if (arity == 1) {
            int column = column(args[0]);
            return columns.type(column).read(target, column);
          }
          break;
        case "getDate":
          if (isDateTimeColumn(args, RemoteType.Reading.DATE)) {
            return RemoteType.date(target, column(args[0]), zone(args));
          }
          break;
        case "getTimestamp":
          if (isDateTimeColumn(args, RemoteType.Reading.TIMESTAMP_MILLIS)) {
            return RemoteType.timestamp(target, column(args[0]), zone(args));
          }
          break;
        case "getDouble", "getFloat":
          if (arity == 1) {
            // DuckDB's driver answers NaN for NULL, which Avatica would send; JDBC says 0. Reading
            // the object also sets DuckDB's wasNull(), which Avatica asks next.
            Object value = target.getObject(column(args[0]));
            if (value == null) {
              return method.getName().equals("getDouble") ? (Object) 0d : (Object) 0f;
            }
            Number number = (Number) value;
            return method.getName().equals("getDouble")
                ? (Object) number.doubleValue()
                : (Object) number.floatValue();
          }
          break;
        case "getBigDecimal":
          if (arity == 1
              && columns.type(column(args[0])).reading() == RemoteType.Reading.BIG_INTEGER) {
            return columns.type(column(args[0])).read(target, column(args[0]));
          }
          break;
        default:
          break;
      }
      return call(target, method, args);
    }

    private boolean isDateTimeColumn(Object[] args, RemoteType.Reading reading)
        throws SQLException {
      return args != null && columns.type(column(args[0])).reading() == reading;
    }

    private int column(Object indexOrLabel) throws SQLException {
      return indexOrLabel instanceof Integer index
          ? index
          : target.findColumn((String) indexOrLabel);
    }

    private static java.util.TimeZone zone(Object[] args) {
      return RemoteType.zoneOf(args.length > 1 ? (Calendar) args[1] : null);
    }
  }
}
