package org.calciteivm.core;

import java.sql.SQLFeatureNotSupportedException;

/**
 * A view query that calcite-ivm refuses to maintain, with the construct that causes it.
 *
 * <p>Two kinds are distinguished, as users act on them differently: constructs that are {@link
 * Reason#NOT_YET not supported yet} and constructs that can {@link Reason#NEVER never} be
 * maintained incrementally (such as non-deterministic functions).
 */
public final class UnsupportedViewException extends SQLFeatureNotSupportedException {
  private static final long serialVersionUID = 1L;

  /** Why a construct is refused. */
  public enum Reason {
    /** A later version may maintain it. */
    NOT_YET,
    /** Its result is not a function of the base tables, so no delta can be derived. */
    NEVER
  }

  private final String construct;
  private final Reason reason;

  private UnsupportedViewException(String message, String construct, Reason reason) {
    super(message, "0A000");
    this.construct = construct;
    this.reason = reason;
  }

  /** A construct that this version does not maintain. */
  public static UnsupportedViewException notYet(String view, String construct) {
    return new UnsupportedViewException(
        prefix(view) + construct + " is not supported yet", construct, Reason.NOT_YET);
  }

  /** A construct that this version does not maintain, with what to do instead. */
  public static UnsupportedViewException notYet(String view, String construct, String instead) {
    return new UnsupportedViewException(
        prefix(view) + construct + " is not supported yet (" + instead + ")",
        construct,
        Reason.NOT_YET);
  }

  /** A construct that can never be maintained, with the reason and what to do instead. */
  public static UnsupportedViewException never(String view, String construct, String why) {
    return new UnsupportedViewException(
        prefix(view) + construct + " is not supported: " + why, construct, Reason.NEVER);
  }

  private static String prefix(String view) {
    return "materialized view \"" + view + "\" cannot be maintained incrementally: ";
  }

  /** The refused construct, as named in the message. */
  public String construct() {
    return construct;
  }

  /** Whether the construct may be supported later. */
  public Reason reason() {
    return reason;
  }
}
