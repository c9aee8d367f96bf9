package org.calciteivm.server.auth;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.util.Base64;
import java.util.Objects;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.calciteivm.server.log.ServerLog;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.security.ServerAuthException;
import org.eclipse.jetty.security.UserAuthentication;
import org.eclipse.jetty.security.authentication.DeferredAuthentication;
import org.eclipse.jetty.security.authentication.LoginAuthenticator;
import org.eclipse.jetty.server.Authentication;
import org.eclipse.jetty.server.UserIdentity;
import org.eclipse.jetty.util.security.Constraint;

/**
 * HTTP BASIC authentication (RFC 7617) with failed logins limited ({@link LoginThrottle}) and
 * logged, in place of Jetty's {@code BasicAuthenticator}, which answers a malformed {@code
 * Authorization} header with HTTP 500 (its base64 decoder throws) and checks every attempt.
 *
 * <p>Answers: no credentials, or a scheme other than Basic: 401 with the challenge. Credentials
 * that are not base64 of {@code name:password}: 400 (they cannot be right, and a client that sends
 * them has a bug to fix rather than a password to ask for). A name or address whose failures are
 * used up: 429 with {@code Retry-After}, the password unchecked. A wrong password or unknown name:
 * 401 with the challenge, and a log line with the address and the name (never the password). The
 * credentials are decoded as UTF-8 (the challenge asks for it), or as ISO-8859-1 when they are not
 * UTF-8, which is what Jetty assumed.
 */
public final class ThrottledBasicAuthenticator extends LoginAuthenticator {
  private final LoginThrottle throttle;

  /** An authenticator limiting failed logins with {@code throttle}. */
  public ThrottledBasicAuthenticator(LoginThrottle throttle) {
    this.throttle = Objects.requireNonNull(throttle);
  }

  @Override
  public String getAuthMethod() {
    return Constraint.__BASIC_AUTH;
  }

  @Override
  public Authentication validateRequest(ServletRequest req, ServletResponse res, boolean mandatory)
      throws ServerAuthException {
    if (!mandatory) {
      return new DeferredAuthentication(this);
    }
    HttpServletRequest request = (HttpServletRequest) req;
    HttpServletResponse response = (HttpServletResponse) res;
    String address = request.getRemoteAddr();
    try {
      String header = request.getHeader(HttpHeader.AUTHORIZATION.asString());
      if (header == null || header.isBlank()) {
        return challenge(response);
      }
      String[] schemeAndCredentials = header.strip().split(" +", 2);
      if (!schemeAndCredentials[0].equalsIgnoreCase("basic")) {
        return challenge(response);
      }
      Credentials credentials =
          schemeAndCredentials.length == 2 ? Credentials.decode(schemeAndCredentials[1]) : null;
      if (credentials == null) {
        ServerLog.warning("malformed Basic credentials from " + address);
        response.sendError(HttpStatus.BAD_REQUEST_400);
        return Authentication.SEND_FAILURE;
      }
      return login(credentials, request, response);
    } catch (IOException e) {
      throw new ServerAuthException(e);
    }
  }

  private Authentication login(
      Credentials credentials, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String address = request.getRemoteAddr();
    String name = credentials.name();
    // A name the users file cannot hold needs no check, and says nothing about real names.
    boolean possible = UsersFile.isValidName(name);
    LoginThrottle.Attempt attempt = throttle.begin(address, possible ? name : null);
    if (attempt.refused()) {
      return tooMany(response, attempt.retryAfterSeconds());
    }
    UserIdentity user;
    try {
      user = possible ? login(name, credentials.password(), request) : null;
    } catch (UsersLoginService.BusyException e) {
      attempt.cancel();
      ServerLog.warning(
          "login of " + ServerLog.quote(name) + " from " + address + " refused: " + e.getMessage());
      return tooMany(response, 1);
    } catch (RuntimeException | Error e) {
      attempt.cancel();
      throw e;
    }
    if (user != null) {
      attempt.succeeded();
      return new UserAuthentication(getAuthMethod(), user);
    }
    String usedUp = attempt.failed();
    ServerLog.warning("failed login as " + ServerLog.quote(name) + " from " + address);
    if (usedUp != null) {
      ServerLog.warning(
          "too many failed logins: further attempts of "
              + usedUp
              + " are refused (HTTP 429) until its budget refills");
    }
    return challenge(response);
  }

  private Authentication challenge(HttpServletResponse response) throws IOException {
    response.setHeader(
        HttpHeader.WWW_AUTHENTICATE.asString(),
        "Basic realm=\"" + _loginService.getName() + "\", charset=\"UTF-8\"");
    response.sendError(HttpStatus.UNAUTHORIZED_401);
    return Authentication.SEND_CONTINUE;
  }

  private static Authentication tooMany(HttpServletResponse response, long retryAfterSeconds)
      throws IOException {
    response.setHeader(HttpHeader.RETRY_AFTER.asString(), Long.toString(retryAfterSeconds));
    response.sendError(HttpStatus.TOO_MANY_REQUESTS_429);
    return Authentication.SEND_FAILURE;
  }

  @Override
  public boolean secureResponse(
      ServletRequest request,
      ServletResponse response,
      boolean mandatory,
      Authentication.User validatedUser) {
    return true;
  }

  /** The name and password of BASIC credentials. */
  record Credentials(String name, String password) {
    @Override
    public String toString() {
      return "Credentials[name=" + name + ", password=...]";
    }

    /** Decodes base64 of {@code name:password}; null if {@code token} is not that. */
    static Credentials decode(String token) {
      byte[] bytes;
      try {
        bytes = Base64.getDecoder().decode(token.strip());
      } catch (IllegalArgumentException e) {
        return null;
      }
      String text = text(bytes);
      int colon = text.indexOf(':');
      if (colon < 0) {
        return null;
      }
      return new Credentials(text.substring(0, colon), text.substring(colon + 1));
    }

    private static String text(byte[] bytes) {
      try {
        return UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(bytes))
            .toString();
      } catch (CharacterCodingException e) {
        return new String(bytes, ISO_8859_1);
      }
    }
  }
}
