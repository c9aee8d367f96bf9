package org.calciteivm.jdbc.refresh;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlWith;
import org.apache.calcite.sql.SqlWithItem;
import org.calciteivm.core.IvmNames;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Inlines the common table expressions of a {@code WITH} query: every reference to one in a FROM
 * clause becomes the parenthesized text of its query, under the reference's alias (the CTE's name
 * if it has none) and with the CTE's column names, and the WITH clause goes. An aggregating CTE is
 * then a FROM subquery, which {@link IntermediateStates} keeps as a hidden view; a CTE read twice
 * becomes two. The identity is SQL's own: a non-recursive CTE means its query wherever it is named.
 */
final class CommonTableExpressions {
  private final QueryText text;

  /** Each CTE seen so far, by lower-case name: its query's text, inlined already. */
  private final Map<String, Definition> definitions = new HashMap<>();

  /** A CTE: its query's text and its column names, if it lists them. */
  private record Definition(String query, @Nullable String columns) {}

  private CommonTableExpressions(QueryText text) {
    this.text = text;
  }

  /**
   * The query of {@code text}, parsed as {@code with}, with its CTEs inlined; null if it has a
   * recursive one or the parser's positions do not allow copying the pieces.
   */
  static @Nullable String inline(QueryText text, SqlWith with) {
    CommonTableExpressions inliner = new CommonTableExpressions(text);
    for (SqlNode node : with.withList) {
      SqlWithItem item = (SqlWithItem) node;
      if (item.recursive.booleanValue()) {
        return null;
      }
      String query = inliner.inlined(item.query);
      String columns = null;
      if (item.columnList != null) {
        QueryText.Range range = text.range(item.columnList);
        if (range == null) {
          return null;
        }
        columns = columnsText(text.text(range));
      }
      if (query == null) {
        return null;
      }
      inliner.definitions.put(
          item.name.getSimple().toLowerCase(Locale.ROOT), new Definition(query, columns));
    }
    return inliner.inlined(with.body);
  }

  /** The text of {@code query} with the CTEs it reads inlined; null if positions do not allow. */
  private @Nullable String inlined(SqlNode query) {
    QueryText.Range range = text.range(query);
    if (range == null) {
      return null;
    }
    Map<QueryText.Range, String> replacements = new LinkedHashMap<>();
    if (!references(query, replacements)) {
      return null;
    }
    return text.replaced(range, replacements);
  }

  /** Adds a replacement for each reference to a CTE in the FROM clauses of {@code query}. */
  private boolean references(SqlNode query, Map<QueryText.Range, String> replacements) {
    if (query instanceof SqlSelect select) {
      return select.getFrom() == null || fromItem(select.getFrom(), replacements);
    }
    if (query.getKind() == SqlKind.ORDER_BY) {
      return references(((SqlCall) query).operand(0), replacements);
    }
    if (query instanceof SqlCall call && query.getKind().belongsTo(SqlKind.SET_QUERY)) {
      for (SqlNode operand : call.getOperandList()) {
        if (!references(operand, replacements)) {
          return false;
        }
      }
    }
    return true; // WITH inside, VALUES, ...: left as written
  }

  private boolean fromItem(SqlNode from, Map<QueryText.Range, String> replacements) {
    if (from instanceof SqlJoin join) {
      return fromItem(join.getLeft(), replacements) && fromItem(join.getRight(), replacements);
    }
    if (from instanceof SqlIdentifier name) {
      Definition cte = definition(name);
      if (cte == null) {
        return true;
      }
      QueryText.Range range = text.range(name);
      if (range == null) {
        return false;
      }
      replacements.put(range, aliased(cte, IvmNames.quote(name.getSimple()), null));
      return true;
    }
    if (from.getKind() == SqlKind.AS) {
      List<SqlNode> operands = ((SqlCall) from).getOperandList();
      if (operands.get(0) instanceof SqlIdentifier name && definition(name) != null) {
        QueryText.Range range = text.range(from);
        QueryText.Range alias = text.range(operands.get(1));
        if (range == null || alias == null) {
          return false;
        }
        String columns = null;
        if (operands.size() > 2) {
          List<String> names = new ArrayList<>();
          for (SqlNode column : operands.subList(2, operands.size())) {
            QueryText.Range columnRange = text.range(column);
            if (columnRange == null) {
              return false;
            }
            names.add(text.text(columnRange));
          }
          columns = "(" + String.join(", ", names) + ")";
        }
        replacements.put(range, aliased(definition(name), text.text(alias), columns));
        return true;
      }
      return references(operands.get(0), replacements);
    }
    return references(from, replacements);
  }

  private @Nullable Definition definition(SqlIdentifier name) {
    return name.isSimple() ? definitions.get(name.getSimple().toLowerCase(Locale.ROOT)) : null;
  }

  /** A CTE's query as a FROM subquery named {@code alias}, with the columns given or its own. */
  private static String aliased(Definition cte, String alias, @Nullable String columns) {
    String names = columns != null ? columns : cte.columns() == null ? "" : cte.columns();
    return "(" + cte.query() + ") AS " + alias + names;
  }

  /** A column list's text, parenthesized once whether or not its range took the parentheses. */
  private static String columnsText(String list) {
    String trimmed = list.trim();
    return trimmed.startsWith("(") ? trimmed : "(" + trimmed + ")";
  }
}
