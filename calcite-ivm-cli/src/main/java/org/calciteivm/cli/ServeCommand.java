package org.calciteivm.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.logging.Handler;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.calciteivm.server.IvmServer;
import org.calciteivm.server.log.ServerLog;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code calcite-ivm serve}: an Avatica HTTP server over a calcite-ivm database, until the process
 * is stopped (SIGTERM, Ctrl-C), which stops it cleanly through a shutdown hook. The server's log
 * ({@link ServerLog}: failed logins, HTTP error answers, server errors) goes to standard error, one
 * line per event.
 */
@Command(
    name = "serve",
    description = {
      "Serves a database to remote JDBC clients (Avatica HTTP, protobuf).",
      "",
      "Clients connect with Avatica's driver: jdbc:avatica:remote:url=http://HOST:PORT;"
          + "serialization=protobuf (plus ;authentication=BASIC;avatica_user=NAME;"
          + "avatica_password=PASSWORD with --users). Listens on 127.0.0.1 unless --bind says "
          + "otherwise; any other address needs --users, or --insecure. SIGTERM or Ctrl-C "
          + "stops it: running statements finish, open transactions roll back, the database is "
          + "closed."
    })
final class ServeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--db",
      paramLabel = "PATH",
      description = "DuckDB database file, created if missing (default: in-memory)")
  Path db;

  @Option(
      names = "--port",
      paramLabel = "N",
      defaultValue = "8765",
      description = "port to listen on, 0 for any free one (default: ${DEFAULT-VALUE})")
  int port;

  @Option(
      names = "--bind",
      paramLabel = "ADDR",
      defaultValue = "127.0.0.1",
      description = "address to listen on (default: ${DEFAULT-VALUE})")
  String bind;

  @Option(
      names = "--users",
      paramLabel = "FILE",
      description = "require HTTP BASIC authentication as a user of FILE (see: users add)")
  Path users;

  @Option(
      names = "--insecure",
      description = "allow an address other than loopback without --users")
  boolean insecure;

  @Option(
      names = "--max-request-size",
      paramLabel = "SIZE",
      defaultValue = "16MiB",
      converter = ByteSize.class,
      description =
          "largest request body accepted, in bytes or with K, M or G (KiB, MiB, GiB); a larger "
              + "one gets HTTP 413 unread (default: ${DEFAULT-VALUE})")
  long maxRequestSize;

  @Option(
      names = "--stop-timeout",
      paramLabel = "SECONDS",
      defaultValue = "30",
      description = "how long a stop waits for running statements (default: ${DEFAULT-VALUE})")
  long stopTimeout;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    // The server's log goes where the command's messages go, for as long as the server runs.
    Handler log = ServerLog.writeTo(err);
    IvmServer server;
    try {
      IvmServer.Builder builder =
          IvmServer.builder(db)
              .port(port)
              .bind(bind)
              .insecure(insecure)
              .maxRequestSize(maxRequestSize)
              .stopTimeout(Duration.ofSeconds(stopTimeout));
      if (users != null) {
        builder.usersFile(users);
      }
      server = builder.start();
    } catch (IllegalArgumentException | IOException e) {
      ServerLog.stopWritingTo(log);
      err.println("error: " + ErrorMessages.oneLine(e));
      return ExitCode.USAGE;
    } catch (SQLException | RuntimeException e) {
      ServerLog.stopWritingTo(log);
      err.println("error: cannot start the server: " + ErrorMessages.oneLine(e));
      return ExitCode.SOFTWARE;
    }
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> stop(server, err), "calcite-ivm-serve-shutdown"));
    announce(server, err);
    err.flush();
    server.join();
    return ExitCode.OK;
  }

  /**
   * Says where the server listens and how to connect: from this machine, and for a server that
   * listens on all addresses, from others (0.0.0.0 is no address to connect to); warns loudly of a
   * server without authentication that others can reach.
   */
  private void announce(IvmServer server, PrintWriter err) {
    String auth =
        server.authenticated()
            ? " (HTTP BASIC authentication, users of " + users + ")"
            : " (no authentication)";
    if (server.listensOnAllAddresses()) {
      err.println(
          "calcite-ivm: serving "
              + server.database()
              + " on all addresses of this machine ("
              + server.host()
              + "), port "
              + server.port()
              + auth);
    } else {
      err.println("calcite-ivm: serving " + server.database() + " at " + server.url() + auth);
    }
    if (!server.loopbackOnly() && !server.authenticated()) {
      // Loud: --insecure is easy to type, and what it exposes is more than the database.
      err.println(
          "calcite-ivm: WARNING: "
              + IvmServer.INSECURE.formatted(server.host(), server.port())
              + ".");
      err.println(
          "calcite-ivm: WARNING: give --users FILE, or listen on 127.0.0.1 only (the default)");
    } else if (!server.loopbackOnly()) {
      err.println(
          "calcite-ivm: note: plain HTTP: passwords and data cross the network unencrypted;"
              + " beyond one machine, put a TLS proxy or an SSH tunnel in front");
    }
    String basic = server.authenticated() ? ";authentication=BASIC" : "";
    if (!server.listensOnAllAddresses()) {
      err.println("calcite-ivm: connect with " + server.jdbcUrl() + basic);
      return;
    }
    err.println("calcite-ivm: connect with " + server.jdbcUrl() + basic + " (from this machine)");
    List<String> remote = server.remoteJdbcUrls();
    err.println(
        "calcite-ivm: from other machines: "
            + (remote.isEmpty()
                ? "no address of this machine other than loopback was found"
                : remote.stream().map(url -> url + basic).collect(Collectors.joining(" or "))));
  }

  private static void stop(IvmServer server, PrintWriter err) {
    err.println("calcite-ivm: stopping: running statements finish, open transactions roll back");
    err.flush();
    try {
      server.close();
      err.println("calcite-ivm: stopped, database closed");
    } catch (SQLException | RuntimeException e) {
      err.println("error: while stopping: " + ErrorMessages.oneLine(e));
    }
    err.flush();
  }

  /** Reads a size such as {@code 1048576}, {@code 512K}, {@code 16MiB} or {@code 1G} (binary). */
  static final class ByteSize implements ITypeConverter<Long> {
    private static final Pattern SIZE =
        Pattern.compile("(\\d+)\\s*(?:([kmg])(?:i?b)?|b)?", Pattern.CASE_INSENSITIVE);

    @Override
    public Long convert(String value) {
      Matcher matcher = SIZE.matcher(value.strip());
      if (!matcher.matches()) {
        throw new IllegalArgumentException("not a size: " + value + " (such as 16MiB)");
      }
      int shift =
          matcher.group(2) == null
              ? 0
              : 10 * ("kmg".indexOf(matcher.group(2).toLowerCase(Locale.ROOT)) + 1);
      long number = Long.parseLong(matcher.group(1));
      if (number < 1 || number > Long.MAX_VALUE >> shift) {
        throw new IllegalArgumentException("not a size: " + value);
      }
      return number << shift;
    }
  }
}
