package org.calciteivm.server.http;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.ByteBuffer;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.ErrorHandler;

/**
 * Answers every HTTP error that Jetty itself produces (a handler's {@code sendError}, an exception
 * that escaped the handlers, a request Jetty could not parse) with one line of plain text: the
 * status and its reason phrase, such as {@code HTTP 413 Payload Too Large}.
 *
 * <p>Jetty's own error page shows the exception's message and stack trace, which tell an attacker
 * what runs where; the details go to the server's log instead ({@code ServerLog}). Avatica's
 * answers to failed remote calls are not Jetty error pages: they are protobuf {@code
 * ErrorResponse}s, written by Avatica.
 */
public final class PlainErrorHandler extends ErrorHandler {
  /** A handler showing no stack trace, no servlet name and no message. */
  public PlainErrorHandler() {
    setShowStacks(false);
    setShowServlet(false);
    setShowMessageInTitle(false);
  }

  /** The body of every error answer with {@code status}. */
  static String body(int status) {
    return "HTTP " + status + " " + HttpStatus.getMessage(status) + "\n";
  }

  @Override
  protected void generateAcceptableResponse(
      Request baseRequest,
      HttpServletRequest request,
      HttpServletResponse response,
      int code,
      String message)
      throws IOException {
    byte[] body = body(code).getBytes(UTF_8);
    response.setContentType("text/plain;charset=utf-8");
    response.setContentLength(body.length);
    try {
      response.getOutputStream().write(body);
    } catch (IllegalStateException e) {
      // The handler that failed had taken the writer; the page is ASCII either way.
      response.getWriter().write(body(code));
    }
  }

  @Override
  public ByteBuffer badMessageError(int status, String reason, HttpFields fields) {
    fields.put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
    return ByteBuffer.wrap(body(status).getBytes(UTF_8));
  }
}
