package org.calciteivm.server;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.apache.calcite.avatica.remote.Driver.Serialization;
import org.apache.calcite.avatica.remote.LocalService;
import org.apache.calcite.avatica.server.HttpServer;
import org.apache.calcite.avatica.server.ServerCustomizer;
import org.calciteivm.jdbc.IvmDriver;
import org.calciteivm.server.auth.LoginThrottle;
import org.calciteivm.server.auth.PasswordHash;
import org.calciteivm.server.auth.ThrottledBasicAuthenticator;
import org.calciteivm.server.auth.UsersFile;
import org.calciteivm.server.auth.UsersLoginService;
import org.calciteivm.server.http.ErrorAnswerLog;
import org.calciteivm.server.http.FailureLoggingHandler;
import org.calciteivm.server.http.PlainErrorHandler;
import org.calciteivm.server.log.ServerLog;
import org.eclipse.jetty.security.ConstraintMapping;
import org.eclipse.jetty.security.ConstraintSecurityHandler;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.SizeLimitHandler;
import org.eclipse.jetty.server.handler.StatisticsHandler;
import org.eclipse.jetty.util.security.Constraint;

/**
 * An Avatica HTTP server (protobuf serialization) over one calcite-ivm database: remote clients
 * connect with Avatica's JDBC driver ({@code jdbc:avatica:remote:url=...;serialization=protobuf})
 * and use the database as embedded connections do.
 *
 * <p>Safe by default: it listens on 127.0.0.1 unless told otherwise, and refuses to listen on any
 * other address without a users file (HTTP BASIC, {@link UsersFile}) unless explicitly made {@link
 * Builder#insecure insecure}.
 *
 * <p>The server keeps a connection of its own to the database for its whole life, so the database
 * stays open (and its compiled views cached) while no client is connected, and a file that another
 * process holds fails at start. {@link #close} stops accepting requests, lets the running ones
 * finish (up to the {@link Builder#stopTimeout stop timeout}), rolls back transactions that clients
 * left open, closes every connection and thereby the database.
 *
 * <p>Hardened against clients: request bodies are limited ({@link Builder#maxRequestSize}) and a
 * larger one is answered with HTTP 413 without being read; failed logins are limited per address
 * and user name ({@link LoginThrottle}); error answers show no stack trace ({@link
 * PlainErrorHandler}). It logs start and stop, failed logins, every HTTP error answer and server
 * errors, one line each, through {@link ServerLog}.
 */
public final class IvmServer implements AutoCloseable {
  /** The HTTP realm of BASIC authentication. */
  public static final String REALM = "calcite-ivm";

  /**
   * The default limit of a request body: 16 MiB. Avatica holds a request's body in memory, as bytes
   * and then parsed, so the limit bounds the memory each request in flight can take; remote JDBC
   * calls are statements and batches of parameters, far smaller.
   */
  public static final long DEFAULT_MAX_REQUEST_SIZE = 16L << 20;

  /** What an insecure server on an address other than loopback exposes (address, port). */
  public static final String INSECURE =
      "no authentication on %s: anyone who can reach port %d can read and change the database, and"
          + " read and write every file this server process can (DuckDB's COPY, read_csv,"
          + " ATTACH)";

  private final HttpServer http;
  private final IvmMeta meta;
  private final Connection anchor;
  private final String database;
  private final InetAddress address;
  private final String host;
  private final boolean authenticated;
  private final StatisticsHandler statistics;
  private final long maxRequestSize;
  private boolean closed;

  private IvmServer(
      HttpServer http,
      IvmMeta meta,
      Connection anchor,
      String database,
      InetAddress address,
      String host,
      boolean authenticated,
      StatisticsHandler statistics,
      long maxRequestSize) {
    this.http = http;
    this.meta = meta;
    this.anchor = anchor;
    this.database = database;
    this.address = address;
    this.host = host;
    this.authenticated = authenticated;
    this.statistics = statistics;
    this.maxRequestSize = maxRequestSize;
  }

  /** A builder of a server over the database file {@code database}, or in-memory if null. */
  public static Builder builder(Path database) {
    return new Builder(database);
  }

  /** The port the server listens on. */
  public int port() {
    return http.getPort();
  }

  /** The address the server listens on, as written in its URL. */
  public String host() {
    return host;
  }

  /** Whether the server listens on every address of the machine (0.0.0.0 or ::). */
  public boolean listensOnAllAddresses() {
    return address.isAnyLocalAddress();
  }

  /** Whether only processes on this machine can connect (a loopback address). */
  public boolean loopbackOnly() {
    return address.isLoopbackAddress();
  }

  /**
   * An HTTP URL that clients on this machine can connect to, such as {@code http://127.0.0.1:8765}:
   * the address the server listens on, or the loopback address if it listens on all addresses.
   */
  public String url() {
    return url(
        listensOnAllAddresses() ? (address instanceof Inet6Address ? "[::1]" : "127.0.0.1") : host);
  }

  /** The JDBC URL a client on this machine connects with ({@link #url}, protobuf). */
  public String jdbcUrl() {
    return jdbcUrl(url());
  }

  /**
   * JDBC URLs with which clients on other machines can connect, best first: the address the server
   * listens on; if it listens on all addresses, the machine's host name (if it names an address
   * other than loopback) and the addresses of its network interfaces that are up (IPv4 ones only
   * for 0.0.0.0; no link-local IPv6 addresses, which need a zone). Empty if the server listens on
   * loopback only. Whether a firewall lets a client through is not known here.
   */
  public List<String> remoteJdbcUrls() {
    if (loopbackOnly()) {
      return List.of();
    }
    if (!listensOnAllAddresses()) {
      return List.of(jdbcUrl());
    }
    Set<String> hosts = new LinkedHashSet<>();
    try {
      InetAddress local = InetAddress.getLocalHost();
      if (!local.isLoopbackAddress()) {
        hosts.add(local.getHostName());
      }
    } catch (UnknownHostException e) {
      // no host name: the interface addresses below
    }
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (!nic.isUp() || nic.isLoopback()) {
          continue;
        }
        for (InetAddress a : Collections.list(nic.getInetAddresses())) {
          if (a instanceof Inet6Address
              && (address instanceof Inet4Address || a.isLinkLocalAddress())) {
            continue;
          }
          hosts.add(
              a instanceof Inet6Address
                  ? "[" + ((Inet6Address) a).getHostAddress().replaceAll("%.*", "") + "]"
                  : a.getHostAddress());
        }
      }
    } catch (SocketException e) {
      // no interfaces to list: the host name above, if any
    }
    return hosts.stream().map(h -> jdbcUrl(url(h))).toList();
  }

  private String url(String urlHost) {
    return "http://" + urlHost + ":" + port();
  }

  private static String jdbcUrl(String url) {
    return "jdbc:avatica:remote:url=" + url + ";serialization=protobuf";
  }

  /** What the server serves: the database file, or {@code in-memory}. */
  public String database() {
    return database;
  }

  /** Whether clients must authenticate. */
  public boolean authenticated() {
    return authenticated;
  }

  /** The largest request body accepted, in bytes. */
  public long maxRequestSize() {
    return maxRequestSize;
  }

  /** The number of HTTP requests being handled right now. */
  public int activeRequests() {
    return statistics.getRequestsActive();
  }

  /** The number of open client connections. */
  public long openConnections() {
    return meta.openConnections();
  }

  /** Waits until the server has stopped. */
  public void join() throws InterruptedException {
    http.join();
  }

  /**
   * Stops the server: no new requests; running requests finish within the stop timeout; open
   * transactions of clients roll back; every connection closes, and with the last one the database.
   * Calling it again does nothing.
   */
  @Override
  public synchronized void close() throws SQLException {
    if (closed) {
      return;
    }
    closed = true;
    RuntimeException stopFailure = null;
    try {
      http.stop();
    } catch (RuntimeException e) {
      stopFailure = e;
    }
    List<SQLException> errors = meta.closeAll();
    try {
      anchor.close();
    } catch (SQLException e) {
      errors.add(e);
    }
    ServerLog.info(
        "stopped, "
            + database
            + " closed"
            + (errors.isEmpty() && stopFailure == null ? "" : " (with errors while stopping)"));
    if (!errors.isEmpty()) {
      SQLException first = errors.get(0);
      errors.subList(1, errors.size()).forEach(first::addSuppressed);
      if (stopFailure != null) {
        first.addSuppressed(stopFailure);
      }
      throw first;
    }
    if (stopFailure != null) {
      throw stopFailure;
    }
  }

  /** Options of a server; {@link #start} validates them and starts it. */
  public static final class Builder {
    private final Path database;
    private int port = 8765;
    private String bind = "127.0.0.1";
    private Map<String, PasswordHash> users;
    private boolean insecure;
    private Duration stopTimeout = Duration.ofSeconds(30);
    private long maxRequestSize = DEFAULT_MAX_REQUEST_SIZE;
    private LoginThrottle.Limit perAddress = LoginThrottle.PER_ADDRESS;
    private LoginThrottle.Limit perName = LoginThrottle.PER_NAME;

    private Builder(Path database) {
      this.database = database;
    }

    /** The port to listen on; 0 picks a free one. Default 8765. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("not a port: " + port);
      }
      this.port = port;
      return this;
    }

    /** The address to listen on, a name or an IP address. Default 127.0.0.1. */
    public Builder bind(String address) {
      this.bind = Objects.requireNonNull(address);
      return this;
    }

    /** Requires HTTP BASIC authentication as one of {@code users}. */
    public Builder users(Map<String, PasswordHash> users) {
      this.users = Map.copyOf(users);
      return this;
    }

    /**
     * Requires HTTP BASIC authentication as one of the users in {@code file}.
     *
     * @throws IOException saying what is wrong and how to fix it if the file is missing, unreadable
     *     or malformed, has a hash with too few iterations, or may be read or changed by users
     *     other than its owner ({@link UsersFile#checkPrivate})
     */
    public Builder usersFile(Path file) throws IOException {
      Map<String, PasswordHash> read = UsersFile.read(file);
      UsersFile.checkPrivate(file);
      return users(read);
    }

    /** Allows listening on an address other than loopback without authentication. */
    public Builder insecure(boolean insecure) {
      this.insecure = insecure;
      return this;
    }

    /**
     * The largest request body accepted, in bytes; a larger one is answered with HTTP 413 (Payload
     * Too Large) without being read, whether its size is announced ({@code Content-Length}) or not
     * (chunked: reading stops at the limit). Default {@link #DEFAULT_MAX_REQUEST_SIZE}.
     */
    public Builder maxRequestSize(long bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("not a request size: " + bytes);
      }
      this.maxRequestSize = bytes;
      return this;
    }

    /**
     * How many failed logins an address and a user name may have ({@link LoginThrottle}). Default
     * {@link LoginThrottle#PER_ADDRESS} and {@link LoginThrottle#PER_NAME}.
     */
    public Builder loginLimits(LoginThrottle.Limit perAddress, LoginThrottle.Limit perName) {
      this.perAddress = Objects.requireNonNull(perAddress);
      this.perName = Objects.requireNonNull(perName);
      return this;
    }

    /** How long {@link IvmServer#close} waits for running requests. Default 30 seconds. */
    public Builder stopTimeout(Duration timeout) {
      this.stopTimeout = Objects.requireNonNull(timeout);
      return this;
    }

    /**
     * Opens the database and starts listening.
     *
     * @throws IllegalArgumentException if the address is unknown, or not a loopback address while
     *     neither users nor {@code insecure} are given, or the users are empty
     * @throws SQLException if the database cannot be opened
     */
    public IvmServer start() throws SQLException {
      InetAddress address;
      try {
        address = InetAddress.getByName(bind);
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException("unknown address to bind: " + bind, e);
      }
      if (users == null && !insecure && !address.isLoopbackAddress()) {
        throw new IllegalArgumentException(
            "refusing to listen on "
                + bind
                + " without authentication: anyone who can reach it could read and change the"
                + " database. Give a users file (--users FILE), or --insecure if that is what you"
                + " want");
      }
      if (users != null && users.isEmpty()) {
        throw new IllegalArgumentException("the users file lists no user: nobody could connect");
      }
      String path =
          database == null
              // A named in-memory database, so that all clients share it.
              ? ":memory:calcite_ivm_server_" + UUID.randomUUID().toString().replace("-", "")
              : database.toString();
      String jdbcUrl = IvmDriver.PREFIX + path;
      IvmMeta meta = new IvmMeta(jdbcUrl);
      Connection anchor = DriverManager.getConnection(jdbcUrl);
      StatisticsHandler statistics = new StatisticsHandler();
      ServerCustomizer<Server> customizer =
          server -> customize(server, address.getHostAddress(), statistics);
      HttpServer http =
          new HttpServer.Builder<Server>()
              .withHandler(new LocalService(RemoteErrors.wrap(meta)), Serialization.PROTOBUF)
              .withPort(port)
              .withServerCustomizers(List.of(customizer), Server.class)
              .build();
      try {
        http.start();
      } catch (RuntimeException e) {
        try {
          anchor.close();
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
      String host =
          address instanceof Inet6Address
              ? "[" + address.getHostAddress() + "]"
              : address.getHostAddress();
      IvmServer server =
          new IvmServer(
              http,
              meta,
              anchor,
              database == null ? "in-memory" : database.toString(),
              address,
              host,
              users != null,
              statistics,
              maxRequestSize);
      ServerLog.info(
          "started on "
              + host
              + ":"
              + server.port()
              + ", serving "
              + server.database()
              + (users == null
                  ? " without authentication"
                  : " to "
                      + users.size()
                      + (users.size() == 1 ? " user" : " users")
                      + " (HTTP BASIC)")
              + ", request bodies up to "
              + maxRequestSize
              + " bytes");
      if (users == null && !address.isLoopbackAddress()) {
        ServerLog.warning(INSECURE.formatted(host, server.port()));
      }
      return server;
    }

    /**
     * Binds the connector to the address and puts, in front of Avatica's handler: the count of
     * requests (so that a stop waits for the running ones), the log of failures escaping the
     * handlers, the limit of request bodies (before authentication, so that no one's body is read
     * beyond it), and authentication when there are users. Error answers are plain text and logged.
     */
    private void customize(Server server, String host, StatisticsHandler statistics) {
      for (Connector connector : server.getConnectors()) {
        ((ServerConnector) connector).setHost(host);
      }
      Handler inner = server.getHandler();
      if (users != null) {
        ConstraintSecurityHandler security = security(users);
        security.setHandler(inner);
        inner = security;
      }
      SizeLimitHandler sizeLimit = new SizeLimitHandler(maxRequestSize, -1);
      sizeLimit.setHandler(inner);
      FailureLoggingHandler failures = new FailureLoggingHandler();
      failures.setHandler(sizeLimit);
      statistics.setHandler(failures);
      server.setHandler(statistics);
      server.setErrorHandler(new PlainErrorHandler());
      server.setRequestLog(new ErrorAnswerLog());
      server.setStopTimeout(stopTimeout.toMillis());
    }

    private ConstraintSecurityHandler security(Map<String, PasswordHash> users) {
      Constraint constraint = new Constraint(Constraint.__BASIC_AUTH, UsersLoginService.ROLE);
      constraint.setAuthenticate(true);
      ConstraintMapping mapping = new ConstraintMapping();
      mapping.setConstraint(constraint);
      mapping.setPathSpec("/*");
      ConstraintSecurityHandler security = new ConstraintSecurityHandler();
      security.setAuthenticator(
          new ThrottledBasicAuthenticator(new LoginThrottle(perAddress, perName)));
      security.setLoginService(new UsersLoginService(REALM, users));
      security.setRealmName(REALM);
      security.setConstraintMappings(new ConstraintMapping[] {mapping});
      return security;
    }
  }
}
