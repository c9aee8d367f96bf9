package org.calciteivm.jdbc.refresh;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.util.Litmus;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * {@code GROUPING SETS}, {@code ROLLUP} and {@code CUBE}, written out as the {@code UNION ALL} of
 * one grouped query per grouping set. Identity: a query grouped by the sets {@code S1, ..., Sn} is
 * the bag union over {@code i} of the query grouped by {@code Si}, in which every grouping key not
 * in {@code Si} is NULL and {@code GROUPING(...)} is the constant bit mask of the keys not in
 * {@code Si}. Each branch is an ordinary aggregate, which a split keeps as a hidden view of its own
 * ({@link IntermediateStates}), and the union of their changes is the view's change. CREATE uses it
 * only for a query that does not plan as one aggregate keyed by the number of the set ({@link
 * org.calciteivm.rules.normalize.GroupingSetsToGroupKeyRule}), which refreshes with one merge.
 *
 * <p>{@code ROLLUP (a, b)} stands for the sets {@code (a, b), (a), ()}; {@code CUBE (a, b)} for all
 * four subsets; several items in {@code GROUP BY} for the concatenations of one set of each (so
 * {@code GROUP BY a, ROLLUP (b)} is {@code (a, b), (a)}); repeated sets repeat their rows, as in
 * DuckDB. A key left out of a branch is {@code CAST(NULL AS <its type>)}, and each branch names
 * every column as DuckDB names the user's query's, so that the union has the query's types and
 * names whichever branch comes first. CREATE stores the written-out query.
 */
public final class GroupingSets {
  private final QueryText text;
  private final SqlSelect select;
  private final DuckDbFunctions functions;

  /** The text of the FROM clause. */
  private final String fromText;

  /** Whether the select list or HAVING calls an aggregate. */
  private final boolean aggregates;

  /** The grouping keys, each once, in the order they are first written. */
  private final List<SqlNode> keys = new ArrayList<>();

  private GroupingSets(
      QueryText text, SqlSelect select, String fromText, DuckDbFunctions functions) {
    this.text = text;
    this.fromText = fromText;
    this.select = select;
    this.functions = functions;
    this.aggregates =
        select.getSelectList().stream().anyMatch(item -> GroupByAll.aggregates(item, functions))
            || (select.getHaving() != null && GroupByAll.aggregates(select.getHaving(), functions));
  }

  /**
   * {@code query} with its {@code GROUPING SETS}, {@code ROLLUP} or {@code CUBE} written out as a
   * union; {@code query} itself if its outermost query has none.
   *
   * @throws SQLException if DuckDB cannot describe the query or its keys, or the query has a clause
   *     the union cannot carry ({@code WINDOW}, {@code QUALIFY})
   */
  public static String expand(String query, Connection duckDb) throws SQLException {
    if (!groupsBySets(query)) {
      return query;
    }
    SqlSelect select = QueryText.outermostSelect(query);
    QueryText text = new QueryText(query);
    QueryText.Range range = text.range(select);
    if (range == null) {
      return query; // the planner refuses it, naming GROUPING SETS
    }
    if ((select.getWindowList() != null && !select.getWindowList().isEmpty())
        || select.getQualify() != null) {
      throw new SQLException(
          "GROUPING SETS, ROLLUP or CUBE with a WINDOW or QUALIFY clause is not supported",
          "0A000");
    }
    QueryText.Range from = text.fromClause(select);
    if (from == null) {
      return query; // no FROM, or positions that do not tell: the planner refuses it
    }
    GroupingSets sets =
        new GroupingSets(text, select, text.text(from), DuckDbFunctions.read(duckDb));
    String union = sets.union(duckDb, text.text(range));
    return text.replaced(new QueryText.Range(0, query.length()), Map.of(range, union));
  }

  /**
   * The plan of {@code query} (as written in its statement: {@code planned}) as one aggregate keyed
   * by the number of the grouping set ({@link
   * org.calciteivm.rules.normalize.GroupingSetsToGroupKeyRule}), the first choice for grouping
   * sets; null if its outermost query has none, or if it does not plan so (a repeated set, a
   * DISTINCT aggregate...), for {@link #expand} instead, which plans or refuses with its own
   * reason.
   */
  public static @Nullable ViewCompiler planAsOneAggregate(
      Connection duckDb,
      String viewName,
      String query,
      String planned,
      Collection<TrackedTable> tracked) {
    if (!groupsBySets(query)) {
      return null;
    }
    try {
      return ViewCompiler.plan(duckDb, viewName, planned, tracked);
    } catch (SQLException | RuntimeException e) {
      return null;
    }
  }

  /** Whether the outermost query of {@code query} has GROUPING SETS, ROLLUP or CUBE. */
  private static boolean groupsBySets(String query) {
    SqlSelect select = QueryText.outermostSelect(query);
    return select != null
        && select.getGroup() != null
        && select.getGroup().stream().anyMatch(GroupingSets::isGroupingConstruct);
  }

  private static boolean isGroupingConstruct(SqlNode item) {
    return item.getKind() == SqlKind.GROUPING_SETS
        || item.getKind() == SqlKind.ROLLUP
        || item.getKind() == SqlKind.CUBE;
  }

  /** The union of one grouped query per grouping set of {@code selectText}. */
  private String union(Connection duckDb, String selectText) throws SQLException {
    List<List<SqlNode>> sets = List.of(List.of());
    for (SqlNode item : select.getGroup()) {
      sets = concatenations(sets, setsOf(item));
    }
    for (List<SqlNode> set : sets) {
      for (SqlNode key : set) {
        if (indexOf(keys, key) < 0) {
          keys.add(key);
        }
      }
    }
    List<String> keyTypes = keyTypes(duckDb);
    List<String> names =
        DescribedColumn.describe(duckDb, selectText).stream().map(DescribedColumn::name).toList();
    List<String> branches = new ArrayList<>();
    for (List<SqlNode> set : sets) {
      branches.add(branch(set, keyTypes, names));
    }
    return String.join(select.isDistinct() ? " UNION " : " UNION ALL ", branches);
  }

  /** The grouping sets one item of {@code GROUP BY} stands for, each a list of key expressions. */
  private static List<List<SqlNode>> setsOf(SqlNode item) {
    List<List<SqlNode>> sets = new ArrayList<>();
    switch (item.getKind()) {
      case ROLLUP -> {
        List<SqlNode> elements = ((SqlCall) item).getOperandList();
        for (int n = elements.size(); n >= 0; n--) {
          sets.add(flatten(elements.subList(0, n)));
        }
      }
      case CUBE -> {
        List<SqlNode> elements = ((SqlCall) item).getOperandList();
        for (int mask = (1 << elements.size()) - 1; mask >= 0; mask--) {
          List<SqlNode> chosen = new ArrayList<>();
          for (int i = 0; i < elements.size(); i++) {
            if ((mask & (1 << (elements.size() - 1 - i))) != 0) {
              chosen.add(elements.get(i));
            }
          }
          sets.add(flatten(chosen));
        }
      }
      case GROUPING_SETS -> {
        for (SqlNode element : ((SqlCall) item).getOperandList()) {
          sets.addAll(setsOf(element));
        }
      }
      default -> sets.add(flatten(List.of(item)));
    }
    return sets;
  }

  /** The expressions of {@code elements}, each an expression or a parenthesized list of them. */
  private static List<SqlNode> flatten(List<SqlNode> elements) {
    List<SqlNode> flat = new ArrayList<>();
    for (SqlNode element : elements) {
      if (element instanceof SqlNodeList list) {
        list.forEach(e -> flat.addAll(flatten(List.of(e))));
      } else if (element.getKind() == SqlKind.ROW) {
        flat.addAll(flatten(((SqlCall) element).getOperandList()));
      } else {
        flat.add(element);
      }
    }
    return flat;
  }

  /** Every set of {@code left} followed by every set of {@code right}. */
  private static List<List<SqlNode>> concatenations(
      List<List<SqlNode>> left, List<List<SqlNode>> right) {
    List<List<SqlNode>> sets = new ArrayList<>();
    for (List<SqlNode> l : left) {
      for (List<SqlNode> r : right) {
        List<SqlNode> set = new ArrayList<>(l);
        set.addAll(r);
        sets.add(set);
      }
    }
    return sets;
  }

  private static int indexOf(List<SqlNode> nodes, SqlNode node) {
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i).equalsDeep(node, Litmus.IGNORE)) {
        return i;
      }
    }
    return -1;
  }

  /** The grouped query of one grouping set. */
  private String branch(List<SqlNode> set, List<String> keyTypes, List<String> names)
      throws SQLException {
    List<String> items = new ArrayList<>();
    for (int i = 0; i < select.getSelectList().size(); i++) {
      SqlNode item = select.getSelectList().get(i);
      SqlNode expression = item.getKind() == SqlKind.AS ? ((SqlCall) item).operand(0) : item;
      if (expression instanceof SqlIdentifier id && id.isStar()) {
        throw new SQLException(
            "GROUPING SETS, ROLLUP or CUBE with SELECT * is not supported: name the columns",
            "0A000");
      }
      items.add(written(expression, set, keyTypes) + " AS " + IvmNames.quote(names.get(i)));
    }
    StringBuilder branch = new StringBuilder("SELECT ");
    if (select.isDistinct()) {
      branch.append("DISTINCT ");
    }
    branch.append(String.join(", ", items));
    List<String> groupKeys = new ArrayList<>();
    for (SqlNode key : set) {
      String keyText = textOf(key);
      if (!groupKeys.contains(keyText)) {
        groupKeys.add(keyText);
      }
    }
    if (groupKeys.isEmpty() && !aggregates) {
      // the empty set's one row of NULL keys, whatever the input: a constant
      if (select.getHaving() != null) {
        branch.append(" WHERE ").append(written(select.getHaving(), set, keyTypes));
      }
      return branch.toString();
    }
    branch.append(" FROM ").append(fromText);
    if (select.getWhere() != null) {
      branch.append(" WHERE ").append(textOf(select.getWhere()));
    }
    if (!groupKeys.isEmpty()) {
      branch.append(" GROUP BY ").append(String.join(", ", groupKeys));
    }
    if (select.getHaving() != null) {
      branch.append(" HAVING ").append(written(select.getHaving(), set, keyTypes));
    }
    return branch.toString();
  }

  /**
   * The text of {@code expression} in the branch of {@code set}: each key not in the set a typed
   * NULL, each {@code GROUPING(...)} its constant; aggregates' arguments as written.
   */
  private String written(SqlNode expression, List<SqlNode> set, List<String> keyTypes)
      throws SQLException {
    QueryText.Range range = text.range(expression);
    if (range == null) {
      throw new SQLException(
          "GROUPING SETS, ROLLUP or CUBE: cannot find the text of " + expression, "0A000");
    }
    Map<QueryText.Range, String> replacements = new HashMap<>();
    replace(expression, set, keyTypes, replacements);
    return text.replaced(range, replacements);
  }

  private void replace(
      SqlNode node, List<SqlNode> set, List<String> keyTypes, Map<QueryText.Range, String> out)
      throws SQLException {
    int key = indexOf(keys, node);
    if (key >= 0) {
      if (indexOf(set, node) < 0) {
        out.put(rangeOf(node), "CAST(NULL AS " + keyTypes.get(key) + ")");
      }
      return;
    }
    if (!(node instanceof SqlCall call) || call.getKind() == SqlKind.SELECT) {
      return; // a literal, a column that is not a key, or a subquery
    }
    if (isGrouping(call)) {
      long mask = 0;
      for (SqlNode argument : call.getOperandList()) {
        mask = (mask << 1) | (indexOf(set, argument) < 0 ? 1 : 0);
      }
      out.put(rangeOf(node), "CAST(" + mask + " AS BIGINT)");
      return;
    }
    if (call.getOperator().isAggregator()
        || functions.isAggregate(call.getOperator().getName())
        || call.getKind() == SqlKind.FILTER
        || call.getKind() == SqlKind.WITHIN_GROUP
        || call.getKind() == SqlKind.WITHIN_DISTINCT
        || call.getKind() == SqlKind.OVER) {
      return; // an aggregate's arguments and FILTER are the group's rows, not its keys
    }
    for (SqlNode operand : call.getOperandList()) {
      if (operand instanceof SqlNodeList list) {
        for (SqlNode element : list) {
          replace(element, set, keyTypes, out);
        }
      } else if (operand != null) {
        replace(operand, set, keyTypes, out);
      }
    }
  }

  /** Whether {@code call} is {@code GROUPING(...)} or {@code GROUPING_ID(...)} (unresolved too). */
  private static boolean isGrouping(SqlCall call) {
    String name = call.getOperator().getName();
    return call.getKind() == SqlKind.GROUPING
        || call.getKind() == SqlKind.GROUPING_ID
        || name.equalsIgnoreCase("GROUPING")
        || name.equalsIgnoreCase("GROUPING_ID");
  }

  private QueryText.Range rangeOf(SqlNode node) throws SQLException {
    QueryText.Range range = text.range(node);
    if (range == null) {
      throw new SQLException(
          "GROUPING SETS, ROLLUP or CUBE: cannot find the text of " + node, "0A000");
    }
    return range;
  }

  private String textOf(SqlNode node) throws SQLException {
    return text.text(rangeOf(node));
  }

  /** The DuckDB types of the keys, as DuckDB types them over the query's FROM and WHERE. */
  private List<String> keyTypes(Connection duckDb) throws SQLException {
    List<String> keyTexts = new ArrayList<>();
    for (SqlNode key : keys) {
      keyTexts.add(textOf(aliased(key)));
    }
    StringBuilder query =
        new StringBuilder("SELECT ")
            .append(String.join(", ", keyTexts))
            .append(" FROM ")
            .append(fromText);
    if (select.getWhere() != null) {
      query.append(" WHERE ").append(textOf(select.getWhere()));
    }
    return DescribedColumn.describe(duckDb, query.toString()).stream()
        .map(DescribedColumn::type)
        .toList();
  }

  /** The expression of the select item whose alias {@code key} is (GROUP BY an alias), or key. */
  private SqlNode aliased(SqlNode key) {
    if (!(key instanceof SqlIdentifier id) || !id.isSimple()) {
      return key;
    }
    for (SqlNode item : select.getSelectList()) {
      if (item.getKind() == SqlKind.AS
          && ((SqlCall) item).operand(1) instanceof SqlIdentifier alias
          && alias.getSimple().equalsIgnoreCase(id.getSimple())) {
        return ((SqlCall) item).operand(0);
      }
    }
    return key;
  }
}
