package org.calciteivm.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Which build of calcite-ivm this is: its version and when it was built, filled in by Maven. What a
 * build compiles and stores in a database (refresh programs) is used only by the same build.
 */
public final class IvmBuild {
  /** The version, such as {@code 0.1.0}. */
  public static final String VERSION;

  /** When it was built (UTC). */
  public static final String BUILT;

  /** The build's identity: its version and build time. */
  public static final String ID;

  static {
    Properties properties = new Properties();
    try (InputStream in = IvmBuild.class.getResourceAsStream("build.properties")) {
      if (in == null) {
        throw new IllegalStateException("build.properties is missing from calcite-ivm-core");
      }
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    VERSION = properties.getProperty("version");
    BUILT = properties.getProperty("built");
    ID = VERSION + " built " + BUILT;
  }

  private IvmBuild() {}
}
