package org.calciteivm.jdbc.delegate;

import java.io.InputStream;
import java.io.Reader;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Date;
import java.sql.NClob;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.Ref;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLXML;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.Calendar;

/**
 * A {@link PreparedStatement} that forwards every call to another one; subclasses override what
 * they change. Generated from the JDBC interface, so that no method is forgotten.
 */
public abstract class DelegatingPreparedStatement extends DelegatingStatement
    implements PreparedStatement {
  /** The wrapped statement, typed as a prepared one. */
  protected final PreparedStatement preparedDelegate;

  protected DelegatingPreparedStatement(PreparedStatement delegate) {
    super(delegate);
    this.preparedDelegate = delegate;
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
  public void addBatch() throws SQLException {
    preparedDelegate.addBatch();
  }

  @Override
  public void clearParameters() throws SQLException {
    preparedDelegate.clearParameters();
  }

  @Override
  public boolean execute() throws SQLException {
    return preparedDelegate.execute();
  }

  @Override
  public long executeLargeUpdate() throws SQLException {
    return preparedDelegate.executeLargeUpdate();
  }

  @Override
  public ResultSet executeQuery() throws SQLException {
    return preparedDelegate.executeQuery();
  }

  @Override
  public int executeUpdate() throws SQLException {
    return preparedDelegate.executeUpdate();
  }

  @Override
  public ResultSetMetaData getMetaData() throws SQLException {
    return preparedDelegate.getMetaData();
  }

  @Override
  public ParameterMetaData getParameterMetaData() throws SQLException {
    return preparedDelegate.getParameterMetaData();
  }

  @Override
  public void setArray(int a0, Array a1) throws SQLException {
    preparedDelegate.setArray(a0, a1);
  }

  @Override
  public void setAsciiStream(int a0, InputStream a1, int a2) throws SQLException {
    preparedDelegate.setAsciiStream(a0, a1, a2);
  }

  @Override
  public void setAsciiStream(int a0, InputStream a1, long a2) throws SQLException {
    preparedDelegate.setAsciiStream(a0, a1, a2);
  }

  @Override
  public void setAsciiStream(int a0, InputStream a1) throws SQLException {
    preparedDelegate.setAsciiStream(a0, a1);
  }

  @Override
  public void setBigDecimal(int a0, java.math.BigDecimal a1) throws SQLException {
    preparedDelegate.setBigDecimal(a0, a1);
  }

  @Override
  public void setBinaryStream(int a0, InputStream a1, int a2) throws SQLException {
    preparedDelegate.setBinaryStream(a0, a1, a2);
  }

  @Override
  public void setBinaryStream(int a0, InputStream a1, long a2) throws SQLException {
    preparedDelegate.setBinaryStream(a0, a1, a2);
  }

  @Override
  public void setBinaryStream(int a0, InputStream a1) throws SQLException {
    preparedDelegate.setBinaryStream(a0, a1);
  }

  @Override
  public void setBlob(int a0, InputStream a1, long a2) throws SQLException {
    preparedDelegate.setBlob(a0, a1, a2);
  }

  @Override
  public void setBlob(int a0, InputStream a1) throws SQLException {
    preparedDelegate.setBlob(a0, a1);
  }

  @Override
  public void setBlob(int a0, Blob a1) throws SQLException {
    preparedDelegate.setBlob(a0, a1);
  }

  @Override
  public void setBoolean(int a0, boolean a1) throws SQLException {
    preparedDelegate.setBoolean(a0, a1);
  }

  @Override
  public void setByte(int a0, byte a1) throws SQLException {
    preparedDelegate.setByte(a0, a1);
  }

  @Override
  public void setBytes(int a0, byte[] a1) throws SQLException {
    preparedDelegate.setBytes(a0, a1);
  }

  @Override
  public void setCharacterStream(int a0, Reader a1, int a2) throws SQLException {
    preparedDelegate.setCharacterStream(a0, a1, a2);
  }

  @Override
  public void setCharacterStream(int a0, Reader a1, long a2) throws SQLException {
    preparedDelegate.setCharacterStream(a0, a1, a2);
  }

  @Override
  public void setCharacterStream(int a0, Reader a1) throws SQLException {
    preparedDelegate.setCharacterStream(a0, a1);
  }

  @Override
  public void setClob(int a0, Reader a1, long a2) throws SQLException {
    preparedDelegate.setClob(a0, a1, a2);
  }

  @Override
  public void setClob(int a0, Reader a1) throws SQLException {
    preparedDelegate.setClob(a0, a1);
  }

  @Override
  public void setClob(int a0, Clob a1) throws SQLException {
    preparedDelegate.setClob(a0, a1);
  }

  @Override
  public void setDate(int a0, Date a1, Calendar a2) throws SQLException {
    preparedDelegate.setDate(a0, a1, a2);
  }

  @Override
  public void setDate(int a0, Date a1) throws SQLException {
    preparedDelegate.setDate(a0, a1);
  }

  @Override
  public void setDouble(int a0, double a1) throws SQLException {
    preparedDelegate.setDouble(a0, a1);
  }

  @Override
  public void setFloat(int a0, float a1) throws SQLException {
    preparedDelegate.setFloat(a0, a1);
  }

  @Override
  public void setInt(int a0, int a1) throws SQLException {
    preparedDelegate.setInt(a0, a1);
  }

  @Override
  public void setLong(int a0, long a1) throws SQLException {
    preparedDelegate.setLong(a0, a1);
  }

  @Override
  public void setNCharacterStream(int a0, Reader a1, long a2) throws SQLException {
    preparedDelegate.setNCharacterStream(a0, a1, a2);
  }

  @Override
  public void setNCharacterStream(int a0, Reader a1) throws SQLException {
    preparedDelegate.setNCharacterStream(a0, a1);
  }

  @Override
  public void setNClob(int a0, Reader a1, long a2) throws SQLException {
    preparedDelegate.setNClob(a0, a1, a2);
  }

  @Override
  public void setNClob(int a0, Reader a1) throws SQLException {
    preparedDelegate.setNClob(a0, a1);
  }

  @Override
  public void setNClob(int a0, NClob a1) throws SQLException {
    preparedDelegate.setNClob(a0, a1);
  }

  @Override
  public void setNString(int a0, String a1) throws SQLException {
    preparedDelegate.setNString(a0, a1);
  }

  @Override
  public void setNull(int a0, int a1, String a2) throws SQLException {
    preparedDelegate.setNull(a0, a1, a2);
  }

  @Override
  public void setNull(int a0, int a1) throws SQLException {
    preparedDelegate.setNull(a0, a1);
  }

  @Override
  public void setObject(int a0, Object a1, int a2, int a3) throws SQLException {
    preparedDelegate.setObject(a0, a1, a2, a3);
  }

  @Override
  public void setObject(int a0, Object a1, int a2) throws SQLException {
    preparedDelegate.setObject(a0, a1, a2);
  }

  @Override
  public void setObject(int a0, Object a1, SQLType a2, int a3) throws SQLException {
    preparedDelegate.setObject(a0, a1, a2, a3);
  }

  @Override
  public void setObject(int a0, Object a1, SQLType a2) throws SQLException {
    preparedDelegate.setObject(a0, a1, a2);
  }

  @Override
  public void setObject(int a0, Object a1) throws SQLException {
    preparedDelegate.setObject(a0, a1);
  }

  @Override
  public void setRef(int a0, Ref a1) throws SQLException {
    preparedDelegate.setRef(a0, a1);
  }

  @Override
  public void setRowId(int a0, RowId a1) throws SQLException {
    preparedDelegate.setRowId(a0, a1);
  }

  @Override
  public void setSQLXML(int a0, SQLXML a1) throws SQLException {
    preparedDelegate.setSQLXML(a0, a1);
  }

  @Override
  public void setShort(int a0, short a1) throws SQLException {
    preparedDelegate.setShort(a0, a1);
  }

  @Override
  public void setString(int a0, String a1) throws SQLException {
    preparedDelegate.setString(a0, a1);
  }

  @Override
  public void setTime(int a0, Time a1, Calendar a2) throws SQLException {
    preparedDelegate.setTime(a0, a1, a2);
  }

  @Override
  public void setTime(int a0, Time a1) throws SQLException {
    preparedDelegate.setTime(a0, a1);
  }

  @Override
  public void setTimestamp(int a0, Timestamp a1, Calendar a2) throws SQLException {
    preparedDelegate.setTimestamp(a0, a1, a2);
  }

  @Override
  public void setTimestamp(int a0, Timestamp a1) throws SQLException {
    preparedDelegate.setTimestamp(a0, a1);
  }

  @Override
  public void setURL(int a0, java.net.URL a1) throws SQLException {
    preparedDelegate.setURL(a0, a1);
  }

  @Override
  @Deprecated
  public void setUnicodeStream(int a0, InputStream a1, int a2) throws SQLException {
    preparedDelegate.setUnicodeStream(a0, a1, a2);
  }
}
