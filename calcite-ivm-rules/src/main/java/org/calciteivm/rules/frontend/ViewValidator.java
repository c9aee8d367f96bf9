package org.calciteivm.rules.frontend;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.prepare.CalciteSqlValidator;
import org.apache.calcite.sql.JoinConditionType;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlShuttle;
import org.apache.calcite.sql.validate.SqlValidatorNamespace;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Calcite's validator with DuckDB's reading of the columns that {@code USING} and {@code NATURAL}
 * joins merge: after {@code a JOIN b USING (i)} an unqualified {@code i} names the merged column in
 * every clause. Calcite resolves it in the select list and {@code GROUP BY} only, and calls it
 * ambiguous in {@code WHERE} and {@code HAVING}.
 *
 * <p>Before a SELECT's clauses are validated, each unqualified name of a merged column is replaced
 * by the column the join keeps, as DuckDB defines it: the left input's after an inner or left join
 * (the two are equal where an inner join matched them, and a left join keeps the left row), the
 * right input's after a right join, {@code COALESCE(left, right)} after a full join. A select item
 * keeps its name ({@code a.i AS i}). A name that some input has without a join merging it stays as
 * it is, and Calcite reports it as before.
 */
final class ViewValidator extends CalciteSqlValidator {
  ViewValidator(
      SqlOperatorTable operators,
      CalciteCatalogReader catalogReader,
      JavaTypeFactory typeFactory,
      Config config) {
    super(operators, catalogReader, typeFactory, config);
  }

  /** The first clause Calcite validates after the FROM clause, whose names are then known. */
  @Override
  protected void validateWhereClause(SqlSelect select) {
    if (select.getFrom() instanceof SqlJoin join) {
      Resolved from = resolve(join);
      if (!from.merged().isEmpty()) {
        replaceMergedColumns(select, from.merged());
      }
    }
    super.validateWhereClause(select);
  }

  private static void replaceMergedColumns(SqlSelect select, List<MergedColumn> merged) {
    SqlShuttle replacer =
        new SqlShuttle() {
          @Override
          public SqlNode visit(SqlIdentifier id) {
            MergedColumn column = id.isSimple() ? find(merged, id.getSimple()) : null;
            return column == null ? id : column.expression(id.getParserPosition());
          }

          @Override
          public @Nullable SqlNode visit(SqlCall call) {
            if (call.getKind() == SqlKind.SELECT) {
              return call; // a subquery has names of its own
            }
            if (call.getKind() == SqlKind.AS) {
              // the alias is a name, not a column
              List<SqlNode> operands = new ArrayList<>(call.getOperandList());
              operands.set(0, operands.get(0).accept(this));
              return call.getOperator().createCall(call.getParserPosition(), operands);
            }
            return super.visit(call);
          }
        };
    // in place: Calcite holds on to the select list it read before the FROM clause
    SqlNodeList items = select.getSelectList();
    for (int i = 0; i < items.size(); i++) {
      SqlNode item = items.get(i);
      SqlNode replaced = item.accept(replacer);
      if (replaced != item && item instanceof SqlIdentifier id) {
        replaced =
            SqlStdOperatorTable.AS.createCall(
                id.getParserPosition(),
                replaced,
                new SqlIdentifier(id.getSimple(), id.getParserPosition()));
      }
      items.set(i, replaced);
    }
    if (select.getWhere() != null) {
      select.setWhere(select.getWhere().accept(replacer));
    }
    if (select.getGroup() != null) {
      select.setGroupBy((SqlNodeList) select.getGroup().accept(replacer));
    }
    if (select.getHaving() != null) {
      select.setHaving(select.getHaving().accept(replacer));
    }
  }

  private static @Nullable MergedColumn find(List<MergedColumn> merged, String name) {
    for (MergedColumn column : merged) {
      if (column.name().equalsIgnoreCase(name)) {
        return column;
      }
    }
    return null;
  }

  /** The inputs of a FROM item in order, and the columns its joins merge. */
  private record Resolved(List<Input> inputs, List<MergedColumn> merged) {}

  private Resolved resolve(SqlNode node) {
    if (!(node instanceof SqlJoin join)) {
      String alias = alias(node);
      SqlValidatorNamespace namespace = getNamespace(node);
      return new Resolved(
          List.of(
              alias == null || namespace == null
                  ? new Input("", List.of()) // nothing can be qualified with it
                  : new Input(alias, namespace.getRowType().getFieldNames())),
          List.of());
    }
    Resolved left = resolve(join.getLeft());
    Resolved right = resolve(join.getRight());
    List<Input> inputs = new ArrayList<>(left.inputs());
    inputs.addAll(right.inputs());
    List<MergedColumn> merged = new ArrayList<>();
    for (String name : mergedNames(join, left.inputs(), right.inputs())) {
      SqlNode leftColumn = column(left, name);
      SqlNode rightColumn = column(right, name);
      if (leftColumn == null || rightColumn == null) {
        return new Resolved(inputs, List.of()); // Calcite reports what is wrong
      }
      merged.add(new MergedColumn(name, join.getJoinType(), leftColumn, rightColumn));
    }
    // columns merged further down stay merged unless this join merges them again
    for (MergedColumn column : left.merged()) {
      if (find(merged, column.name()) == null) {
        merged.add(column);
      }
    }
    for (MergedColumn column : right.merged()) {
      if (find(merged, column.name()) == null) {
        merged.add(column);
      }
    }
    return new Resolved(inputs, merged);
  }

  /**
   * The expression for column {@code name} of a join input: its merged column if it merges one of
   * that name, else the one input's column of that name, or null if none or several have it.
   */
  private static @Nullable SqlNode column(Resolved side, String name) {
    MergedColumn merged = find(side.merged(), name);
    if (merged != null) {
      return merged.expression(SqlParserPos.ZERO);
    }
    SqlNode found = null;
    for (Input input : side.inputs()) {
      String column = input.column(name);
      if (column != null) {
        if (found != null) {
          return null;
        }
        found = new SqlIdentifier(List.of(input.name(), column), SqlParserPos.ZERO);
      }
    }
    return found;
  }

  private static List<String> mergedNames(SqlJoin join, List<Input> left, List<Input> right) {
    if (join.getConditionType() == JoinConditionType.USING) {
      return SqlIdentifier.simpleNames((SqlNodeList) join.getCondition());
    }
    if (!join.isNatural()) {
      return List.of();
    }
    List<String> common = new ArrayList<>();
    for (Input r : right) {
      for (String column : r.columns()) {
        if (left.stream().anyMatch(l -> l.column(column) != null)) {
          common.add(column);
        }
      }
    }
    return common;
  }

  /** The name a FROM item is known by: its alias, or the last part of its table name. */
  private static @Nullable String alias(SqlNode node) {
    if (node.getKind() == SqlKind.AS) {
      return ((SqlIdentifier) ((SqlCall) node).operand(1)).getSimple();
    }
    if (node instanceof SqlIdentifier table) {
      return table.names.get(table.names.size() - 1);
    }
    return null;
  }

  /** An input of a join: the name it is known by and its columns. */
  private record Input(String name, List<String> columns) {
    /** The column called {@code name} (in any case), as the input spells it, or null. */
    @Nullable String column(String name) {
      for (String column : columns) {
        if (column.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
          return column;
        }
      }
      return null;
    }
  }

  /** A column a join merges, and the two columns it merges. */
  private record MergedColumn(String name, JoinType joinType, SqlNode left, SqlNode right) {
    /** What the merged column is: the column the join keeps. */
    SqlNode expression(SqlParserPos pos) {
      return switch (joinType) {
        case RIGHT -> right.clone(pos);
        case FULL ->
            SqlStdOperatorTable.COALESCE.createCall(pos, left.clone(pos), right.clone(pos));
        default -> left.clone(pos);
      };
    }
  }
}
