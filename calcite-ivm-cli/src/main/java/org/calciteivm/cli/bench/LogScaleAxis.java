package org.calciteivm.cli.bench;

import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.math.BigDecimal;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.text.NumberFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.axis.AxisState;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTick;
import org.jfree.chart.axis.TickType;
import org.jfree.chart.axis.ValueTick;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.TextAnchor;

/**
 * A logarithmic axis with ticks at 1 to 9 times the powers of ten. Over a wide range it labels the
 * powers of ten (every second or more of them beyond 8 decades), over up to 2.5 decades also 2 and
 * 5 times them, and over less than 0.7 decades every tick, so that a narrow range has labels too.
 */
final class LogScaleAxis extends LogAxis {
  private final NumberFormat format =
      new DecimalFormat("#,##0.####", DecimalFormatSymbols.getInstance(Locale.ROOT));

  LogScaleAxis(String label) {
    super(label);
  }

  @Override
  public List<ValueTick> refreshTicks(
      Graphics2D g2, AxisState state, Rectangle2D dataArea, RectangleEdge edge) {
    double lower = getLowerBound();
    double upper = getUpperBound();
    double decades = Math.log10(upper / lower);
    int decadeStep = Math.max(1, (int) Math.ceil(decades / 8));
    TextAnchor anchor;
    if (edge == RectangleEdge.TOP) {
      anchor = TextAnchor.BOTTOM_CENTER;
    } else if (edge == RectangleEdge.BOTTOM) {
      anchor = TextAnchor.TOP_CENTER;
    } else if (edge == RectangleEdge.LEFT) {
      anchor = TextAnchor.CENTER_RIGHT;
    } else {
      anchor = TextAnchor.CENTER_LEFT;
    }
    List<ValueTick> ticks = new ArrayList<>();
    for (int exponent = (int) Math.floor(Math.log10(lower));
        exponent <= Math.ceil(Math.log10(upper));
        exponent++) {
      for (int multiple = 1; multiple <= 9; multiple++) {
        // via BigDecimal, so that 3 * 10^-2 is 0.03 and not 0.030000000000000002
        double value = new BigDecimal(multiple).scaleByPowerOfTen(exponent).doubleValue();
        if (value < lower || value > upper) {
          continue;
        }
        boolean labelled =
            decades < 0.7
                || decades <= 2.5 && (multiple == 1 || multiple == 2 || multiple == 5)
                || multiple == 1 && Math.floorMod(exponent, decadeStep) == 0;
        ticks.add(
            new NumberTick(
                labelled ? TickType.MAJOR : TickType.MINOR,
                value,
                labelled ? format.format(value) : "",
                anchor,
                anchor,
                0));
      }
    }
    return ticks;
  }
}
