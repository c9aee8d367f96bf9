package org.calciteivm.server;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import org.apache.calcite.avatica.AvaticaSeverity;
import org.apache.calcite.avatica.NoSuchConnectionException;
import org.apache.calcite.avatica.remote.AvaticaRuntimeException;
import org.apache.calcite.avatica.remote.ProtobufMeta;
import org.calciteivm.server.http.RequestNotes;
import org.calciteivm.server.log.ServerLog;

/**
 * Turns what the server's {@link IvmMeta} throws into the errors remote clients should see.
 *
 * <p>Avatica's {@code JdbcMeta} wraps a failed statement's {@link SQLException} in a {@link
 * RuntimeException}, and Avatica's answer then names every exception of the chain ({@code
 * RuntimeException: java.sql.SQLException: Parser Error: ... -> SQLException: Parser Error: ...})
 * with SQLState {@code 00000} and error code -1, plus the server's stack traces. Thrown as an
 * {@link AvaticaRuntimeException}, the error reaches the client as the embedded driver's caller
 * would see it: the {@link SQLException}'s message once, its SQLState and its vendor code, and no
 * stack trace of the server.
 *
 * <p>Any other failure of the server (a bug, an {@link OutOfMemoryError}) is logged and reaches the
 * client as {@code internal error in the server: <exception>} with SQLState {@code XX000}, also
 * without a stack trace. Avatica's own signals pass unchanged: {@link NoSuchConnectionException}
 * (its client reconnects on it) and the checked exceptions a {@link ProtobufMeta} method declares.
 */
final class RemoteErrors implements InvocationHandler {
  /** SQLState of an internal error (PostgreSQL's {@code internal_error}). */
  static final String INTERNAL_ERROR = "XX000";

  private final IvmMeta meta;

  private RemoteErrors(IvmMeta meta) {
    this.meta = meta;
  }

  /** {@code meta}, throwing errors as described above. */
  static ProtobufMeta wrap(IvmMeta meta) {
    return (ProtobufMeta)
        Proxy.newProxyInstance(
            RemoteErrors.class.getClassLoader(),
            new Class<?>[] {ProtobufMeta.class},
            new RemoteErrors(meta));
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(meta, args);
    } catch (InvocationTargetException e) {
      throw translate(method.getName(), e.getCause());
    }
  }

  /** What to throw instead of {@code thrown}, thrown by the meta's method {@code method}. */
  static Throwable translate(String method, Throwable thrown) {
    if (thrown instanceof AvaticaRuntimeException
        || thrown instanceof NoSuchConnectionException
        || !(thrown instanceof RuntimeException || thrown instanceof Error)) {
      return thrown;
    }
    SQLException sql = sqlException(thrown);
    if (sql != null) {
      RequestNotes.note(
          "SQL error" + (sql.getSQLState() == null ? "" : ", SQLState " + sql.getSQLState()));
      return new RemoteError(
          sql.getMessage() == null ? sql.getClass().getSimpleName() : sql.getMessage(),
          sql.getErrorCode(),
          sql.getSQLState());
    }
    RequestNotes.note("server error");
    ServerLog.error("server error in " + method, thrown);
    return new RemoteError(
        "internal error in the server: " + ServerLog.summary(thrown), -1, INTERNAL_ERROR);
  }

  /** The outermost {@link SQLException} in the causes of {@code thrown}: what JDBC threw. */
  private static SQLException sqlException(Throwable thrown) {
    for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }

  /**
   * An error for the client: without a stack trace (Avatica sends the exception's stack trace
   * along, and the server's stack is none of the client's business), and with the SQLState of the
   * original error even if that is null, as DuckDB's often is: Avatica's constructor refuses null,
   * its answer carries null, and the client should see what the embedded driver gives.
   */
  static final class RemoteError extends AvaticaRuntimeException {
    private static final long serialVersionUID = 1L;

    private final String sqlState;

    RemoteError(String message, int errorCode, String sqlState) {
      super(message, errorCode, sqlState == null ? "" : sqlState, AvaticaSeverity.ERROR);
      this.sqlState = sqlState;
    }

    @Override
    public String getSqlState() {
      return sqlState;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }
}
