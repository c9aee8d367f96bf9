package org.calciteivm.cli.bench;

import java.util.List;

/** Markdown tables of the benchmark's summary: columns, a header, rows, and cells made safe. */
final class MarkdownTable {
  private MarkdownTable() {}

  /**
   * A column of a markdown table.
   *
   * @param title the header cell
   * @param numbers whether the column holds numbers, aligned right; names and flags align left
   */
  record Column(String title, boolean numbers) {
    static Column text(String title) {
      return new Column(title, false);
    }

    static Column numbers(String title) {
      return new Column(title, true);
    }
  }

  /** A cell's text with what would break the table's row made harmless. */
  static String escape(String cell) {
    return cell.replace("|", "\\|").replace("\n", " ");
  }

  static void appendHeader(StringBuilder md, List<Column> columns) {
    appendRow(md, columns.stream().map(Column::title).toList());
    md.append('|');
    for (Column column : columns) {
      md.append(column.numbers() ? "---:|" : "---|");
    }
    md.append('\n');
  }

  static void appendRow(StringBuilder md, List<String> cells) {
    md.append("| ").append(String.join(" | ", cells)).append(" |\n");
  }
}
