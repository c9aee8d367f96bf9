package org.calciteivm.server.http;

import javax.servlet.http.HttpServletRequest;

/**
 * What the server learned about the request a thread is handling, for the line {@link
 * ErrorAnswerLog} writes about its answer: Avatica answers every failed remote call with HTTP 500,
 * whether the client's SQL failed or the server did, and only the code that saw the failure knows
 * which.
 */
public final class RequestNotes {
  private static final String ATTRIBUTE = RequestNotes.class.getName();
  private static final ThreadLocal<HttpServletRequest> CURRENT = new ThreadLocal<>();

  private RequestNotes() {}

  /** Notes {@code note} on the request the calling thread handles, if it handles one. */
  public static void note(String note) {
    HttpServletRequest request = CURRENT.get();
    if (request != null) {
      request.setAttribute(ATTRIBUTE, note);
    }
  }

  /** The note on {@code request}, or null. */
  static String of(HttpServletRequest request) {
    Object note = request.getAttribute(ATTRIBUTE);
    return note == null ? null : note.toString();
  }

  /** Makes {@code request} the one the calling thread handles, until {@link #end}. */
  static void begin(HttpServletRequest request) {
    CURRENT.set(request);
  }

  /** The calling thread no longer handles a request. */
  static void end() {
    CURRENT.remove();
  }
}
