package org.calciteivm.tests;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.calciteivm.server.log.OneLineFormatter;
import org.calciteivm.server.log.ServerLog;

/**
 * Collects the lines the server logs while it is open, formatted as {@code serve} writes them
 * ({@link OneLineFormatter}), in addition to wherever else the log goes.
 */
final class ServerLogLines extends Handler implements AutoCloseable {
  // Held: java.util.logging keeps loggers weakly, and a collected logger loses this handler.
  private final Logger logger = Logger.getLogger(ServerLog.NAME);
  private final List<String> lines = new CopyOnWriteArrayList<>();

  ServerLogLines() {
    setFormatter(new OneLineFormatter());
    logger.addHandler(this);
  }

  /** The lines logged so far. */
  List<String> lines() {
    return List.copyOf(lines);
  }

  /**
   * The lines logged so far, once one of them contains {@code text}, waiting for it up to a minute:
   * Jetty logs an answer after sending it, so its client may see it first.
   */
  List<String> linesOnceLogged(String text) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (lines.stream().noneMatch(line -> line.contains(text)) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    return lines();
  }

  @Override
  public void publish(LogRecord record) {
    lines.add(getFormatter().format(record).strip());
  }

  @Override
  public void flush() {}

  @Override
  public void close() {
    logger.removeHandler(this);
  }
}
