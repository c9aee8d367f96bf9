package org.calciteivm.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.calciteivm.server.log.OneLineFormatter;
import org.calciteivm.server.log.ServerLog;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.AbstractHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Jetty server set up as the calcite-ivm server's is, in front of a handler that fails as a
 * server can (out of memory, a bug) or answers an error itself: every answer is one line of plain
 * text, and the log has one line for the failure and one for the answer.
 */
class FailureLoggingHandlerTest {
  private final Logger logger = Logger.getLogger(ServerLog.NAME);
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          lines.add(new OneLineFormatter().format(record).strip());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
  private Server server;

  @BeforeEach
  void start() throws Exception {
    logger.addHandler(capture);
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    FailureLoggingHandler failures = new FailureLoggingHandler();
    failures.setHandler(
        new AbstractHandler() {
          @Override
          public void handle(
              String target,
              Request baseRequest,
              HttpServletRequest request,
              HttpServletResponse response)
              throws java.io.IOException {
            switch (target) {
              case "/oom" -> throw new OutOfMemoryError("Java heap space");
              case "/bug" -> throw new IllegalStateException("a bug", new RuntimeException("why"));
              default -> {
                baseRequest.setHandled(true);
                response.sendError(418, "a message that must not reach the client");
              }
            }
          }
        });
    server.setHandler(failures);
    server.setErrorHandler(new PlainErrorHandler());
    server.setRequestLog(new ErrorAnswerLog());
    server.start();
  }

  @AfterEach
  void stop() throws Exception {
    server.stop();
    logger.removeHandler(capture);
  }

  /** The lines logged, once one contains {@code text}: Jetty logs an answer after sending it. */
  private List<String> linesOnceLogged(String text) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (lines.stream().noneMatch(line -> line.contains(text)) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    return List.copyOf(lines);
  }

  private HttpResponse<String> get(String path) throws Exception {
    int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void anOutOfMemoryErrorIsLoggedAndAnsweredWithoutDetails() throws Exception {
    HttpResponse<String> response = get("/oom");

    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(response.body()).isEqualTo("HTTP 500 Server Error\n");
    assertThat(linesOnceLogged("HTTP 500"))
        .anySatisfy(
            line ->
                assertThat(line)
                    .endsWith(
                        " SEVERE server error on /oom from 127.0.0.1: OutOfMemoryError: Java heap"
                            + " space"))
        .anySatisfy(
            line ->
                assertThat(line)
                    .endsWith(" INFO GET /oom from 127.0.0.1: HTTP 500 (server error)"));
  }

  @Test
  void aBugIsLoggedWithItsCausesAndAnsweredWithoutDetails() throws Exception {
    HttpResponse<String> response = get("/bug");

    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(response.body()).isEqualTo("HTTP 500 Server Error\n");
    assertThat(lines)
        .anySatisfy(
            line ->
                assertThat(line)
                    .endsWith(
                        "server error on /bug from 127.0.0.1: IllegalStateException: a bug <-"
                            + " RuntimeException: why"));
  }

  @Test
  void anErrorAnswerShowsItsStatusOnly() throws Exception {
    HttpResponse<String> response = get("/teapot");

    assertThat(response.statusCode()).isEqualTo(418);
    assertThat(response.body()).isEqualTo("HTTP 418 I'm a Teapot\n");
    assertThat(linesOnceLogged("HTTP 418"))
        .singleElement()
        .satisfies(line -> assertThat(line).endsWith(" INFO GET /teapot from 127.0.0.1: HTTP 418"));
  }
}
