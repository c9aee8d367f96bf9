package org.calciteivm.server.types;

import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The metadata of a DuckDB result as a remote client sees it: each column's {@link RemoteType}
 * replaces DuckDB's type, precision, scale, class and signedness; names, labels and the rest are
 * DuckDB's. The type name stays DuckDB's ({@code HUGEINT}, {@code TIMESTAMP}, {@code UUID}), so a
 * client can tell what a text column holds.
 */
final class RemoteColumns implements ResultSetMetaData {
  private final ResultSetMetaData delegate;
  private final List<RemoteType> types;

  private RemoteColumns(ResultSetMetaData delegate, List<RemoteType> types) {
    this.delegate = delegate;
    this.types = types;
  }

  /** The remote view of {@code metaData}. */
  static RemoteColumns of(ResultSetMetaData metaData) throws SQLException {
    List<RemoteType> types = new ArrayList<>();
    for (int i = 1; i <= metaData.getColumnCount(); i++) {
      types.add(RemoteType.of(metaData, i));
    }
    return new RemoteColumns(metaData, List.copyOf(types));
  }

  /** The remote type of column {@code column} (1-based). */
  RemoteType type(int column) throws SQLException {
    if (column < 1 || column > types.size()) {
      throw new SQLException("column index out of range: " + column);
    }
    return types.get(column - 1);
  }

  @Override
  public int getColumnCount() {
    return types.size();
  }

  @Override
  public int getColumnType(int column) throws SQLException {
    return type(column).jdbcType();
  }

  @Override
  public int getPrecision(int column) throws SQLException {
    return type(column).precision();
  }

  @Override
  public int getScale(int column) throws SQLException {
    return type(column).scale();
  }

  @Override
  public String getColumnClassName(int column) throws SQLException {
    return type(column).className();
  }

  @Override
  public boolean isSigned(int column) throws SQLException {
    return type(column).signed();
  }

  @Override
  public int getColumnDisplaySize(int column) throws SQLException {
    return delegate.getColumnDisplaySize(column);
  }

  @Override
  public String getColumnTypeName(int column) throws SQLException {
    return delegate.getColumnTypeName(column);
  }

  @Override
  public boolean isAutoIncrement(int column) throws SQLException {
    return delegate.isAutoIncrement(column);
  }

  @Override
  public boolean isCaseSensitive(int column) throws SQLException {
    return delegate.isCaseSensitive(column);
  }

  @Override
  public boolean isSearchable(int column) throws SQLException {
    return delegate.isSearchable(column);
  }

  @Override
  public boolean isCurrency(int column) throws SQLException {
    return delegate.isCurrency(column);
  }

  @Override
  public int isNullable(int column) throws SQLException {
    return delegate.isNullable(column);
  }

  @Override
  public String getColumnLabel(int column) throws SQLException {
    return delegate.getColumnLabel(column);
  }

  @Override
  public String getColumnName(int column) throws SQLException {
    return delegate.getColumnName(column);
  }

  @Override
  public String getSchemaName(int column) throws SQLException {
    return delegate.getSchemaName(column);
  }

  @Override
  public String getTableName(int column) throws SQLException {
    return delegate.getTableName(column);
  }

  @Override
  public String getCatalogName(int column) throws SQLException {
    return delegate.getCatalogName(column);
  }

  @Override
  public boolean isReadOnly(int column) throws SQLException {
    return delegate.isReadOnly(column);
  }

  @Override
  public boolean isWritable(int column) throws SQLException {
    return delegate.isWritable(column);
  }

  @Override
  public boolean isDefinitelyWritable(int column) throws SQLException {
    return delegate.isDefinitelyWritable(column);
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
}
