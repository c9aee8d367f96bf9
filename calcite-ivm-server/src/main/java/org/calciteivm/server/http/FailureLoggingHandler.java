package org.calciteivm.server.http;

import java.io.IOException;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.calciteivm.server.log.ServerLog;
import org.eclipse.jetty.http.BadMessageException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.HandlerWrapper;

/**
 * Logs a failure that escapes the handlers inside it (an {@link OutOfMemoryError}, a bug) before
 * Jetty answers it with HTTP 500 ({@link PlainErrorHandler}), and lets the code inside note what it
 * learns about the request ({@link RequestNotes}).
 *
 * <p>Not logged as server failures: {@link BadMessageException}s, which are a client's fault (a
 * body over the size limit) and are answered with their own status, and {@link IOException}s, which
 * are broken connections.
 */
public final class FailureLoggingHandler extends HandlerWrapper {
  @Override
  public void handle(
      String target, Request baseRequest, HttpServletRequest request, HttpServletResponse response)
      throws IOException, ServletException {
    RequestNotes.begin(request);
    try {
      super.handle(target, baseRequest, request, response);
    } catch (BadMessageException | IOException e) {
      throw e;
    } catch (RuntimeException | Error | ServletException e) {
      RequestNotes.note("server error");
      ServerLog.error(
          "server error on "
              + ServerLog.word(request.getRequestURI())
              + " from "
              + request.getRemoteAddr(),
          e);
      throw e;
    } finally {
      RequestNotes.end();
    }
  }
}
