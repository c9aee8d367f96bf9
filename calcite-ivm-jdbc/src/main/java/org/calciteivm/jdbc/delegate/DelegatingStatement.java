package org.calciteivm.jdbc.delegate;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;

/**
 * A {@link Statement} that forwards every call to another one; subclasses override what they
 * change. Generated from the JDBC interface, so that no method is forgotten.
 */
public abstract class DelegatingStatement implements Statement {
  /** The wrapped statement; a subclass may replace it. */
  protected Statement delegate;

  protected DelegatingStatement(Statement delegate) {
    this.delegate = delegate;
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    if (iface.isInstance(this)) {
      return iface.cast(this);
    }
    throw new SQLException("not a wrapper for " + iface.getName());
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return iface.isInstance(this);
  }

  @Override
  public void addBatch(String a0) throws SQLException {
    delegate.addBatch(a0);
  }

  @Override
  public void cancel() throws SQLException {
    delegate.cancel();
  }

  @Override
  public void clearBatch() throws SQLException {
    delegate.clearBatch();
  }

  @Override
  public void clearWarnings() throws SQLException {
    delegate.clearWarnings();
  }

  @Override
  public void close() throws SQLException {
    delegate.close();
  }

  @Override
  public void closeOnCompletion() throws SQLException {
    delegate.closeOnCompletion();
  }

  @Override
  public String enquoteIdentifier(String a0, boolean a1) throws SQLException {
    return delegate.enquoteIdentifier(a0, a1);
  }

  @Override
  public String enquoteLiteral(String a0) throws SQLException {
    return delegate.enquoteLiteral(a0);
  }

  @Override
  public String enquoteNCharLiteral(String a0) throws SQLException {
    return delegate.enquoteNCharLiteral(a0);
  }

  @Override
  public boolean execute(String a0, int[] a1) throws SQLException {
    return delegate.execute(a0, a1);
  }

  @Override
  public boolean execute(String a0, String[] a1) throws SQLException {
    return delegate.execute(a0, a1);
  }

  @Override
  public boolean execute(String a0, int a1) throws SQLException {
    return delegate.execute(a0, a1);
  }

  @Override
  public boolean execute(String a0) throws SQLException {
    return delegate.execute(a0);
  }

  @Override
  public int[] executeBatch() throws SQLException {
    return delegate.executeBatch();
  }

  @Override
  public long[] executeLargeBatch() throws SQLException {
    return delegate.executeLargeBatch();
  }

  @Override
  public long executeLargeUpdate(String a0, int[] a1) throws SQLException {
    return delegate.executeLargeUpdate(a0, a1);
  }

  @Override
  public long executeLargeUpdate(String a0, String[] a1) throws SQLException {
    return delegate.executeLargeUpdate(a0, a1);
  }

  @Override
  public long executeLargeUpdate(String a0, int a1) throws SQLException {
    return delegate.executeLargeUpdate(a0, a1);
  }

  @Override
  public long executeLargeUpdate(String a0) throws SQLException {
    return delegate.executeLargeUpdate(a0);
  }

  @Override
  public ResultSet executeQuery(String a0) throws SQLException {
    return delegate.executeQuery(a0);
  }

  @Override
  public int executeUpdate(String a0, int[] a1) throws SQLException {
    return delegate.executeUpdate(a0, a1);
  }

  @Override
  public int executeUpdate(String a0, String[] a1) throws SQLException {
    return delegate.executeUpdate(a0, a1);
  }

  @Override
  public int executeUpdate(String a0, int a1) throws SQLException {
    return delegate.executeUpdate(a0, a1);
  }

  @Override
  public int executeUpdate(String a0) throws SQLException {
    return delegate.executeUpdate(a0);
  }

  @Override
  public Connection getConnection() throws SQLException {
    return delegate.getConnection();
  }

  @Override
  public int getFetchDirection() throws SQLException {
    return delegate.getFetchDirection();
  }

  @Override
  public int getFetchSize() throws SQLException {
    return delegate.getFetchSize();
  }

  @Override
  public ResultSet getGeneratedKeys() throws SQLException {
    return delegate.getGeneratedKeys();
  }

  @Override
  public long getLargeMaxRows() throws SQLException {
    return delegate.getLargeMaxRows();
  }

  @Override
  public long getLargeUpdateCount() throws SQLException {
    return delegate.getLargeUpdateCount();
  }

  @Override
  public int getMaxFieldSize() throws SQLException {
    return delegate.getMaxFieldSize();
  }

  @Override
  public int getMaxRows() throws SQLException {
    return delegate.getMaxRows();
  }

  @Override
  public boolean getMoreResults() throws SQLException {
    return delegate.getMoreResults();
  }

  @Override
  public boolean getMoreResults(int a0) throws SQLException {
    return delegate.getMoreResults(a0);
  }

  @Override
  public int getQueryTimeout() throws SQLException {
    return delegate.getQueryTimeout();
  }

  @Override
  public ResultSet getResultSet() throws SQLException {
    return delegate.getResultSet();
  }

  @Override
  public int getResultSetConcurrency() throws SQLException {
    return delegate.getResultSetConcurrency();
  }

  @Override
  public int getResultSetHoldability() throws SQLException {
    return delegate.getResultSetHoldability();
  }

  @Override
  public int getResultSetType() throws SQLException {
    return delegate.getResultSetType();
  }

  @Override
  public int getUpdateCount() throws SQLException {
    return delegate.getUpdateCount();
  }

  @Override
  public SQLWarning getWarnings() throws SQLException {
    return delegate.getWarnings();
  }

  @Override
  public boolean isCloseOnCompletion() throws SQLException {
    return delegate.isCloseOnCompletion();
  }

  @Override
  public boolean isClosed() throws SQLException {
    return delegate.isClosed();
  }

  @Override
  public boolean isPoolable() throws SQLException {
    return delegate.isPoolable();
  }

  @Override
  public boolean isSimpleIdentifier(String a0) throws SQLException {
    return delegate.isSimpleIdentifier(a0);
  }

  @Override
  public void setCursorName(String a0) throws SQLException {
    delegate.setCursorName(a0);
  }

  @Override
  public void setEscapeProcessing(boolean a0) throws SQLException {
    delegate.setEscapeProcessing(a0);
  }

  @Override
  public void setFetchDirection(int a0) throws SQLException {
    delegate.setFetchDirection(a0);
  }

  @Override
  public void setFetchSize(int a0) throws SQLException {
    delegate.setFetchSize(a0);
  }

  @Override
  public void setLargeMaxRows(long a0) throws SQLException {
    delegate.setLargeMaxRows(a0);
  }

  @Override
  public void setMaxFieldSize(int a0) throws SQLException {
    delegate.setMaxFieldSize(a0);
  }

  @Override
  public void setMaxRows(int a0) throws SQLException {
    delegate.setMaxRows(a0);
  }

  @Override
  public void setPoolable(boolean a0) throws SQLException {
    delegate.setPoolable(a0);
  }

  @Override
  public void setQueryTimeout(int a0) throws SQLException {
    delegate.setQueryTimeout(a0);
  }
}
