package org.calciteivm.core;

/**
 * Conventions of the Z-set representation of changes: every change row carries a signed integer
 * weight, +1 for an insert and -1 for a delete; an UPDATE is a -1 row of the old values and a +1
 * row of the new ones.
 */
public final class ZSets {
  /** The name of the weight column that every delta relation carries as its last column. */
  public static final String WEIGHT_COLUMN = "_ivm_weight";

  private ZSets() {}
}
