package org.calciteivm.rules.delta;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.sql.SqlKind;
import org.calciteivm.core.ZSets;

/**
 * The terms of a derived delta plan, written out for people (EXPLAIN REFRESH): one line per term
 * such as {@code - Δorders ⋈ Δlineitem}, with {@code Δt} a change, {@code t} a current state and
 * {@code t⁻} a previous state.
 *
 * <p>The terms are read from the plan the rules produced, not expanded a second time, so they are
 * the terms the plan computes, with those a foreign key proved empty left out. The join rules nest
 * the terms (a join of sums); distributing the joins over the sums gives the lines. The plan's
 * shapes, as the rules and {@link ZSetJoins} build them: a sub-plan that reads no delta relation is
 * a current state; a union whose first input reads none is a previous state ({@link
 * ZSetJoins#previous}), any other union a sum of terms; a projection whose weight column is negated
 * subtracts; a join multiplies; an empty {@code VALUES} is an empty change (views have neither
 * unions nor VALUES of their own).
 */
public final class JoinTerms {
  private JoinTerms() {}

  /** The table of each scan of {@code view}, from left to right, once per scan. */
  public static List<RelOptTable> scannedTables(RelNode view) {
    List<RelOptTable> tables = new ArrayList<>();
    collectScans(view, tables);
    return tables;
  }

  /**
   * Whether the view's delta may hold rows of negative weight even when every change is an insert:
   * with two or more changed scans, inclusion-exclusion subtracts cross terms and telescoping
   * subtracts the change from a current state to rebuild a previous one; an outer join subtracts
   * the padded rows of the rows that gain a match.
   */
  public static boolean negativeWeightsPossible(RelNode view, DeltaContext context) {
    return scannedTables(view).stream().filter(context.hasDelta()).count() > 1
        || hasOuterJoin(view);
  }

  /**
   * The terms of {@code delta}, the delta plan derived from {@code view}, one line each, signed,
   * fewest changes first; empty if the view has no join, or is more than inner joins of scans (a
   * union's terms read the scans of one branch each, an outer join's and a DISTINCT's read scans
   * more than once, which a line of the join's scans cannot show). Scans are named by table,
   * numbered {@code #1}, {@code #2} when a table is read more than once, in the order the view
   * reads them.
   */
  public static List<String> of(RelNode view, RelNode delta) {
    List<RelOptTable> tables = scannedTables(view);
    if (tables.size() < 2 || !innerJoinsOfScans(view)) {
      return List.of();
    }
    List<String> names = names(tables);
    Reader reader =
        new Reader(tables.stream().map(RelOptTable::getQualifiedName).collect(Collectors.toSet()));
    List<Term> terms = reader.readsChange(delta) ? reader.terms(delta) : List.of();
    List<String> lines = new ArrayList<>();
    for (Term term : sorted(terms)) {
      if (term.reads().size() != names.size()) {
        throw new IllegalStateException(
            "a term reads " + term.reads().size() + " scans, the view " + names.size());
      }
      List<String> parts = new ArrayList<>();
      for (int i = 0; i < names.size(); i++) {
        parts.add(term.reads().get(i).written(names.get(i)));
      }
      lines.add((term.negative() ? "- " : "+ ") + String.join(" ⋈ ", parts));
    }
    return lines;
  }

  /**
   * Whether {@code view} is inner joins, filters and projections of scans, with aggregates only
   * above its joins: then each term reads each scan once, as a current state, a change or a
   * previous state.
   */
  private static boolean innerJoinsOfScans(RelNode view) {
    return innerJoinsOfScans(view, false);
  }

  private static boolean innerJoinsOfScans(RelNode rel, boolean belowJoin) {
    boolean join = rel instanceof Join j && j.getJoinType() == JoinRelType.INNER;
    boolean plain =
        join
            || rel instanceof TableScan
            || rel instanceof Filter
            || rel instanceof Project
            || rel instanceof Aggregate && !belowJoin;
    return plain
        && rel.getInputs().stream().allMatch(input -> innerJoinsOfScans(input, belowJoin || join));
  }

  private static boolean hasOuterJoin(RelNode rel) {
    return rel instanceof Join join && join.getJoinType() != JoinRelType.INNER
        || rel.getInputs().stream().anyMatch(JoinTerms::hasOuterJoin);
  }

  /** How a term reads one scan of the view. */
  private enum Read {
    CURRENT,
    CHANGE,
    PREVIOUS;

    String written(String name) {
      return switch (this) {
        case CURRENT -> name;
        case CHANGE -> "Δ" + name;
        case PREVIOUS -> name + "⁻";
      };
    }
  }

  /** A term of the distributed sum: its sign and how it reads each scan, from left to right. */
  private record Term(boolean negative, List<Read> reads) {
    Term times(Term other) {
      List<Read> both = new ArrayList<>(reads);
      both.addAll(other.reads);
      return new Term(negative != other.negative, both);
    }

    Term negated() {
      return new Term(!negative, reads);
    }
  }

  /** Reads the terms of a delta plan whose view scans {@code baseTables}. */
  private static final class Reader {
    private final Set<List<String>> baseTables;
    private final Map<RelNode, Boolean> readsChange = new IdentityHashMap<>();

    Reader(Set<List<String>> baseTables) {
      this.baseTables = baseTables;
    }

    /**
     * Whether {@code rel} reads a change: a delta relation (a scan of a table the view does not
     * read) or an empty one ({@code VALUES}, which only the rules write).
     */
    boolean readsChange(RelNode rel) {
      RelNode node = rel.stripped();
      Boolean known = readsChange.get(node);
      if (known == null) {
        if (node instanceof TableScan scan) {
          known = !baseTables.contains(scan.getTable().getQualifiedName());
        } else {
          known = node instanceof Values || node.getInputs().stream().anyMatch(this::readsChange);
        }
        readsChange.put(node, known);
      }
      return known;
    }

    List<Term> terms(RelNode rel) {
      RelNode node = rel.stripped();
      if (node instanceof Values) {
        return List.of();
      }
      if (!readsChange(node)) {
        return List.of(
            new Term(false, Collections.nCopies(scannedTables(node).size(), Read.CURRENT)));
      }
      if (node instanceof TableScan) {
        return List.of(new Term(false, List.of(Read.CHANGE)));
      }
      if (node instanceof Filter || node instanceof Aggregate) {
        return terms(node.getInput(0));
      }
      if (node instanceof Project project) {
        int last = project.getProjects().size() - 1;
        boolean negates =
            project.getRowType().getFieldNames().get(last).equals(ZSets.WEIGHT_COLUMN)
                && project.getProjects().get(last).getKind() == SqlKind.MINUS_PREFIX;
        List<Term> terms = terms(project.getInput());
        return negates ? terms.stream().map(Term::negated).toList() : terms;
      }
      if (node instanceof Join join && secondPass(join)) {
        return terms(join.getRight());
      }
      if (node instanceof Join join) {
        List<Term> terms = new ArrayList<>();
        for (Term left : terms(join.getLeft())) {
          for (Term right : terms(join.getRight())) {
            terms.add(left.times(right));
          }
        }
        return terms;
      }
      if (node instanceof Union union) {
        if (union.getInputs().size() == 2 && !readsChange(union.getInput(0))) {
          return List.of(previous(union.getInput(0), union.getInput(1)));
        }
        List<Term> terms = new ArrayList<>();
        for (RelNode input : union.getInputs()) {
          terms.addAll(terms(input));
        }
        return terms;
      }
      throw new IllegalStateException("unexpected in a delta plan: " + node.getRelTypeName());
    }

    /**
     * Whether {@code join} is the second pass of an aggregate's change ({@link
     * org.calciteivm.rules.aggregate.AggregateState#deltaStateAggregate(
     * org.apache.calcite.tools.RelBuilder, RelNode, boolean)}): the change's rows joined with their
     * group's row of an aggregate of those same rows. Its terms are the change's.
     */
    private static boolean secondPass(Join join) {
      RelNode groups = join.getLeft().stripped();
      while (groups instanceof Project) {
        groups = groups.getInput(0).stripped();
      }
      if (!(groups instanceof Aggregate aggregate)) {
        return false;
      }
      // the aggregate reads the rows through projections of its own arguments
      String rows = join.getRight().stripped().getDigest();
      for (RelNode input = aggregate.getInput().stripped();
          ;
          input = input.getInput(0).stripped()) {
        if (input.getDigest().equals(rows)) {
          return true;
        }
        if (!(input instanceof Project)) {
          return false;
        }
      }
    }

    /**
     * The previous state {@code current - change} of a join input ({@code undone} is its change
     * with negated weights): its scans that change are read as previous states, the others as
     * current ones.
     */
    private Term previous(RelNode current, RelNode undone) {
      List<Term> terms = terms(undone);
      List<Read> reads = new ArrayList<>();
      for (int i = 0; i < scannedTables(current).size(); i++) {
        int scan = i;
        reads.add(
            terms.stream().anyMatch(t -> t.reads().get(scan) != Read.CURRENT)
                ? Read.PREVIOUS
                : Read.CURRENT);
      }
      return new Term(false, reads);
    }
  }

  /**
   * {@code terms} with the fewest changes first, then as the changed scans' positions count in
   * binary (the order in which inclusion-exclusion enumerates the subsets of changed inputs).
   */
  private static List<Term> sorted(List<Term> terms) {
    Comparator<Term> byChanges =
        Comparator.comparingLong(t -> t.reads().stream().filter(r -> r == Read.CHANGE).count());
    Comparator<Term> byPositions =
        (a, b) -> {
          for (int i = a.reads().size() - 1; i >= 0; i--) {
            boolean inA = a.reads().get(i) == Read.CHANGE;
            boolean inB = b.reads().get(i) == Read.CHANGE;
            if (inA != inB) {
              return inA ? 1 : -1;
            }
          }
          return 0;
        };
    List<Term> sorted = new ArrayList<>(terms);
    sorted.sort(byChanges.thenComparing(byPositions));
    return sorted;
  }

  /** Each scan's table name, numbered when the view reads the table more than once. */
  private static List<String> names(List<RelOptTable> tables) {
    Map<String, Integer> reads = new HashMap<>();
    for (RelOptTable table : tables) {
      reads.merge(tableName(table), 1, Integer::sum);
    }
    Map<String, Integer> seen = new HashMap<>();
    List<String> names = new ArrayList<>();
    for (RelOptTable table : tables) {
      String name = tableName(table);
      names.add(reads.get(name) > 1 ? name + "#" + seen.merge(name, 1, Integer::sum) : name);
    }
    return names;
  }

  private static void collectScans(RelNode rel, List<RelOptTable> tables) {
    RelNode node = rel.stripped();
    if (node instanceof TableScan scan) {
      tables.add(scan.getTable());
    }
    for (RelNode input : node.getInputs()) {
      collectScans(input, tables);
    }
  }

  private static String tableName(RelOptTable table) {
    List<String> name = table.getQualifiedName();
    return name.get(name.size() - 1);
  }
}
