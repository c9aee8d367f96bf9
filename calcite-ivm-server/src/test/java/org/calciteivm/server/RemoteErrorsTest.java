package org.calciteivm.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.avatica.NoSuchConnectionException;
import org.apache.calcite.avatica.NoSuchStatementException;
import org.apache.calcite.avatica.remote.AvaticaRuntimeException;
import org.junit.jupiter.api.Test;

/** Tests what {@link RemoteErrors} makes of what the meta throws. */
class RemoteErrorsTest {
  @Test
  void theOutermostSqlExceptionGivesMessageStateAndCode() {
    SQLException cause = new SQLException("inner", "XX001");
    SQLException sql =
        new SQLIntegrityConstraintViolationException("duplicate key", "23505", 7, cause);

    Throwable translated = RemoteErrors.translate("execute", new RuntimeException(sql));

    assertThat(translated).isInstanceOf(AvaticaRuntimeException.class);
    AvaticaRuntimeException error = (AvaticaRuntimeException) translated;
    assertThat(error.getErrorMessage()).isEqualTo("duplicate key");
    assertThat(error.getSqlState()).isEqualTo("23505");
    assertThat(error.getErrorCode()).isEqualTo(7);
    assertThat(error.getStackTrace()).isEmpty();
    assertThat(error.getCause()).isNull();
  }

  @Test
  void aMissingSqlStateStaysMissing() {
    Throwable translated =
        RemoteErrors.translate("execute", new RuntimeException(new SQLException("Parser Error")));

    assertThat(((AvaticaRuntimeException) translated).getSqlState()).isNull();
  }

  @Test
  void otherFailuresAreInternalErrors() {
    Throwable translated = RemoteErrors.translate("fetch", new OutOfMemoryError("Java heap space"));

    AvaticaRuntimeException error = (AvaticaRuntimeException) translated;
    assertThat(error.getErrorMessage())
        .isEqualTo("internal error in the server: OutOfMemoryError: Java heap space");
    assertThat(error.getSqlState()).isEqualTo("XX000");
    assertThat(error.getStackTrace()).isEmpty();
  }

  @Test
  void avaticasOwnSignalsPassUnchanged() {
    NoSuchConnectionException missing = new NoSuchConnectionException("gone");
    NoSuchStatementException checked =
        new NoSuchStatementException(new Meta.StatementHandle("c", 1, null));

    assertThat(RemoteErrors.translate("fetch", missing)).isSameAs(missing);
    assertThat(RemoteErrors.translate("fetch", checked)).isSameAs(checked);
  }
}
