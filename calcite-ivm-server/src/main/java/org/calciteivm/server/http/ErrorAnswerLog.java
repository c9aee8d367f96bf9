package org.calciteivm.server.http;

import org.calciteivm.server.log.ServerLog;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.RequestLog;
import org.eclipse.jetty.server.Response;

/**
 * Logs one line for every answer with an HTTP error status (4xx, 5xx): method, path, status, the
 * client's address, and what the server noted about the failure ({@link RequestNotes}). Jetty calls
 * it for every request, also those it could not parse (which never reach a handler).
 *
 * <p>Left out: a 401 to a request without credentials. It is the first half of HTTP BASIC (every
 * client's first request gets it before the client sends its password), not an error, and it costs
 * the server nothing; failed logins are logged where the password is checked.
 */
public final class ErrorAnswerLog implements RequestLog {
  @Override
  public void log(Request request, Response response) {
    int status =
        response.getCommittedMetaData() != null
            ? response.getCommittedMetaData().getStatus()
            : response.getStatus();
    if (status < HttpStatus.BAD_REQUEST_400) {
      return;
    }
    if (status == HttpStatus.UNAUTHORIZED_401
        && request.getHeader(HttpHeader.AUTHORIZATION.asString()) == null) {
      return;
    }
    String note = RequestNotes.of(request);
    ServerLog.info(
        ServerLog.word(request.getMethod())
            + " "
            + ServerLog.word(request.getRequestURI())
            + " from "
            + request.getRemoteAddr()
            + ": HTTP "
            + status
            + (note == null ? "" : " (" + note + ")"));
  }
}
