package org.calciteivm.spark;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.schema.lookup.LikePattern;
import org.apache.calcite.schema.lookup.Lookup;
import org.apache.calcite.schema.lookup.Named;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.calciteivm.rules.api.DeltaRelations;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Spark's catalogs as a Calcite schema, for planning views: the root holds each catalog (a schema
 * of namespaces, each a schema of tables) and, so that two-part names resolve as Spark resolves
 * them, the namespaces of the current catalog. Tables are looked up in Spark when a view names them
 * (Spark's names are case-insensitive), typed from their Spark schema ({@link #rowType}).
 *
 * <p>The root also holds the delta relation of each base table a view reads ({@link #addDelta}), a
 * temporary view of Spark whose name is {@link #deltaName}.
 */
final class SparkSchemas {
  private final SparkSession spark;
  private final SchemaPlus root;
  private final SchemaPlus defaultSchema;

  SparkSchemas(SparkSession spark) {
    this.spark = spark;
    this.root = CalciteSchema.createRootSchema(false, false).plus();
    String current = spark.catalog().currentCatalog();
    Set<String> catalogs = new LinkedHashSet<>(List.of(current, "spark_catalog"));
    for (String key :
        scala.jdk.javaapi.CollectionConverters.asJava(spark.conf().getAll()).keySet()) {
      String rest = key.startsWith("spark.sql.catalog.") ? key.substring(18) : "";
      if (!rest.isEmpty() && !rest.contains(".")) {
        catalogs.add(rest);
      }
    }
    for (String catalog : catalogs) {
      root.add(catalog, new Namespaces(catalog));
    }
    SchemaPlus currentCatalog = root.getSubSchema(current);
    for (Row row : spark.sql("SHOW NAMESPACES IN " + quote(current)).collectAsList()) {
      String namespace = row.getString(0);
      if (root.getSubSchema(namespace) == null) {
        root.add(namespace, new Tables(List.of(current, namespace)));
      }
    }
    SchemaPlus namespace = currentCatalog.getSubSchema(spark.catalog().currentDatabase());
    this.defaultSchema = namespace != null ? namespace : currentCatalog;
  }

  /** The schema unqualified names resolve in: Spark's current catalog and namespace. */
  SchemaPlus defaultSchema() {
    return defaultSchema;
  }

  /**
   * Where the changes of the table named {@code name} are: the temporary view {@link #deltaName}.
   */
  static DeltaRelations deltaRelations() {
    return table -> java.util.Optional.of(List.of(deltaName(table.getQualifiedName())));
  }

  /** The name of the temporary view that holds the change of table {@code name}. */
  static String deltaName(List<String> name) {
    return "ivm_delta_"
        + String.join("_", name).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
  }

  /** Registers the delta relation of the table {@code name}, whose columns are {@code type}. */
  void addDelta(List<String> name, StructType type) {
    root.add(
        deltaName(name),
        new SparkTable(f -> DeltaRelations.rowType(f, rowType(f, type, String.join(".", name)))));
  }

  /** {@code name} as Spark SQL: each part quoted with backticks. */
  static String quote(List<String> name) {
    return String.join(".", name.stream().map(SparkSchemas::quote).toList());
  }

  static String quote(String part) {
    return "`" + part.replace("`", "``") + "`";
  }

  /**
   * The Calcite row type of a Spark schema: the same columns, nullability and types.
   *
   * @throws UnsupportedOperationException for a column type the library cannot plan
   */
  static RelDataType rowType(RelDataTypeFactory types, StructType schema, String table) {
    RelDataTypeFactory.Builder builder = types.builder();
    for (StructField field : schema.fields()) {
      RelDataType type = type(types, field.dataType(), table + "." + field.name());
      builder.add(field.name(), types.createTypeWithNullability(type, field.nullable()));
    }
    return builder.build();
  }

  private static RelDataType type(RelDataTypeFactory types, DataType type, String column) {
    if (type instanceof DecimalType decimal) {
      return types.createSqlType(SqlTypeName.DECIMAL, decimal.precision(), decimal.scale());
    }
    SqlTypeName name;
    if (type.equals(DataTypes.BooleanType)) {
      name = SqlTypeName.BOOLEAN;
    } else if (type.equals(DataTypes.ByteType)) {
      name = SqlTypeName.TINYINT;
    } else if (type.equals(DataTypes.ShortType)) {
      name = SqlTypeName.SMALLINT;
    } else if (type.equals(DataTypes.IntegerType)) {
      name = SqlTypeName.INTEGER;
    } else if (type.equals(DataTypes.LongType)) {
      name = SqlTypeName.BIGINT;
    } else if (type.equals(DataTypes.FloatType)) {
      name = SqlTypeName.REAL;
    } else if (type.equals(DataTypes.DoubleType)) {
      name = SqlTypeName.DOUBLE;
    } else if (type.equals(DataTypes.StringType)) {
      name = SqlTypeName.VARCHAR;
    } else if (type.equals(DataTypes.DateType)) {
      name = SqlTypeName.DATE;
    } else if (type.equals(DataTypes.TimestampType) || type.equals(DataTypes.TimestampNTZType)) {
      name = SqlTypeName.TIMESTAMP;
    } else {
      throw new UnsupportedOperationException(
          "column " + column + " has type " + type.sql() + ", which views cannot read yet");
    }
    return types.createSqlType(name);
  }

  /** A Spark table as Calcite sees it: its row type, computed when the view is planned. */
  private static final class SparkTable extends AbstractTable {
    private final Function<RelDataTypeFactory, RelDataType> rowType;

    SparkTable(Function<RelDataTypeFactory, RelDataType> rowType) {
      this.rowType = rowType;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
      return rowType.apply(types);
    }
  }

  /** A catalog: its namespaces, looked up when named. */
  private final class Namespaces extends AbstractSchema {
    private final String catalog;

    Namespaces(String catalog) {
      this.catalog = catalog;
    }

    @Override
    public Lookup<? extends Schema> subSchemas() {
      return new NameLookup<>(
          name ->
              exists("SHOW NAMESPACES IN " + quote(catalog) + " LIKE '" + like(name) + "'")
                  ? new Tables(List.of(catalog, name))
                  : null);
    }
  }

  /** A namespace: its tables, looked up when named. */
  private final class Tables extends AbstractSchema {
    private final List<String> namespace;

    Tables(List<String> namespace) {
      this.namespace = namespace;
    }

    @Override
    public Lookup<Table> tables() {
      return new NameLookup<>(
          name -> {
            String qualified = quote(namespace) + "." + quote(name);
            if (!spark.catalog().tableExists(qualified)) {
              return null;
            }
            StructType schema = spark.table(qualified).schema();
            return new SparkTable(f -> rowType(f, schema, qualified));
          });
    }
  }

  private boolean exists(String showQuery) {
    return !spark.sql(showQuery).isEmpty();
  }

  private static String like(String name) {
    return name.replace("'", "").replace("*", "").replace("|", "");
  }

  /** Names resolved one at a time, case-insensitively (Spark's names are stored in lower case). */
  private static final class NameLookup<T> implements Lookup<T> {
    private final Function<String, @Nullable T> find;

    NameLookup(Function<String, @Nullable T> find) {
      this.find = find;
    }

    @Override
    public @Nullable T get(String name) {
      return find.apply(name.toLowerCase(Locale.ROOT));
    }

    @Override
    public @Nullable Named<T> getIgnoreCase(String name) {
      String lower = name.toLowerCase(Locale.ROOT);
      T found = find.apply(lower);
      return found == null ? null : new Named<>(lower, found);
    }

    @Override
    public Set<String> getNames(LikePattern pattern) {
      return Set.of();
    }
  }
}
