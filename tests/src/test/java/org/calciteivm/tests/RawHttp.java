package org.calciteivm.tests;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.calcite.avatica.remote.ProtobufTranslationImpl;
import org.apache.calcite.avatica.remote.Service;
import org.calciteivm.server.IvmServer;

/**
 * HTTP/1.1 over a plain socket, for the requests Java's HTTP client cannot make: from a chosen
 * loopback address (Linux routes all of 127.0.0.0/8 to the loopback interface), with malformed or
 * non-ASCII headers, or with a body streamed until the server stops reading it.
 */
final class RawHttp {
  private static final int TIMEOUT_MILLIS = 60_000;

  private RawHttp() {}

  /** A response: its status, headers (names in lower case) and body as ISO-8859-1 text. */
  record Response(int status, Map<String, String> headers, String body) {}

  /** The value of an {@code Authorization} header with BASIC credentials. */
  static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(UTF_8));
  }

  /** The body of a valid Avatica request: open connection {@code id}. */
  static byte[] openConnection(String id) {
    try {
      return new ProtobufTranslationImpl()
          .serializeRequest(new Service.OpenConnectionRequest(id, Map.of()));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * POSTs {@code body} from {@code from} with {@code headerLines} (raw bytes: any byte may occur),
   * and reads the whole response (the request asks the server to close the connection).
   */
  static Response post(IvmServer server, String from, byte[] headerLines, byte[] body)
      throws IOException {
    try (Socket socket = connect(server, from)) {
      OutputStream out = socket.getOutputStream();
      out.write(head(server, "Content-Length: " + body.length + "\r\n"));
      out.write(headerLines);
      out.write("\r\n".getBytes(ISO_8859_1));
      out.write(body);
      out.flush();
      return read(socket.getInputStream());
    }
  }

  /** POSTs {@code body} from {@code from} with an {@code Authorization} header, if not null. */
  static Response post(IvmServer server, String from, String authorization, byte[] body)
      throws IOException {
    String header = authorization == null ? "" : "Authorization: " + authorization + "\r\n";
    return post(server, from, header.getBytes(UTF_8), body);
  }

  /**
   * Sends the head of a POST announcing a body of {@code contentLength} bytes, and the first 64 KiB
   * of it (Jetty hands a request to the handlers once some of its body has arrived), and reads the
   * response.
   */
  static Response announce(IvmServer server, String authorization, long contentLength)
      throws IOException {
    try (Socket socket = connect(server, "127.0.0.1")) {
      OutputStream out = socket.getOutputStream();
      out.write(
          head(
              server,
              "Content-Length: "
                  + contentLength
                  + "\r\nAuthorization: "
                  + authorization
                  + "\r\n\r\n"));
      out.write(new byte[64 * 1024]);
      out.flush();
      return read(socket.getInputStream());
    }
  }

  /**
   * Streams a chunked body (no {@code Content-Length}) of zeros, up to {@code cap} bytes, while
   * reading the response. Returns the response and the bytes written before the server stopped
   * taking them (a write failed), or {@code cap} if it never did.
   */
  static Streamed streamChunked(IvmServer server, String authorization, long cap) throws Exception {
    Socket socket = connect(server, "127.0.0.1");
    try {
      OutputStream out = socket.getOutputStream();
      out.write(
          head(
              server,
              "Transfer-Encoding: chunked\r\nAuthorization: " + authorization + "\r\n\r\n"));
      CompletableFuture<Long> writer =
          CompletableFuture.supplyAsync(
              () -> {
                byte[] chunk = new byte[64 * 1024];
                byte[] size = (Integer.toHexString(chunk.length) + "\r\n").getBytes(ISO_8859_1);
                byte[] end = "\r\n".getBytes(ISO_8859_1);
                long written = 0;
                try {
                  while (written < cap) {
                    out.write(size);
                    out.write(chunk);
                    out.write(end);
                    written += chunk.length;
                  }
                  out.write("0\r\n\r\n".getBytes(ISO_8859_1));
                  out.flush();
                } catch (IOException e) {
                  // the server closed the connection: it reads no more
                }
                return written;
              });
      Response response = read(socket.getInputStream());
      // The server has answered and takes no more of the body; closing ends a writer still going.
      socket.close();
      return new Streamed(response, writer.get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS));
    } finally {
      socket.close();
    }
  }

  /** A response to a streamed body, and how much of the body was sent. */
  record Streamed(Response response, long written) {}

  private static Socket connect(IvmServer server, String from) throws IOException {
    Socket socket = new Socket();
    socket.setSoTimeout(TIMEOUT_MILLIS);
    socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
    socket.connect(new InetSocketAddress(InetAddress.getByName(server.host()), server.port()));
    return socket;
  }

  private static byte[] head(IvmServer server, String more) {
    return ("POST / HTTP/1.1\r\nHost: "
            + server.host()
            + ":"
            + server.port()
            + "\r\nConnection: close\r\nContent-Type: application/octet-stream\r\n"
            + more)
        .getBytes(ISO_8859_1);
  }

  /**
   * Reads a response: to the end of its {@code Content-Length} if it has one (the server may keep
   * the connection open after it, waiting for the rest of a body it refused), else to the end of
   * the connection.
   */
  private static Response read(InputStream in) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    int headEnd = -1;
    long end = Long.MAX_VALUE; // where the response ends, once its head says so
    try {
      while (bytes.size() < end) {
        int n = in.read(buffer);
        if (n < 0) {
          break;
        }
        bytes.write(buffer, 0, n);
        if (headEnd < 0) {
          headEnd = bytes.toString(ISO_8859_1).indexOf("\r\n\r\n");
          long length = headEnd < 0 ? -1 : contentLength(bytes.toString(ISO_8859_1), headEnd);
          if (length >= 0) {
            end = headEnd + 4 + length;
          }
        }
      }
    } catch (IOException e) {
      // a reset after the response: keep what arrived
      if (headEnd < 0) {
        throw e;
      }
    }
    String text = bytes.toString(ISO_8859_1);
    if (headEnd < 0) {
      throw new IOException("no complete response: " + text);
    }
    Map<String, String> headers = headers(text.substring(0, headEnd));
    String[] statusLine = text.substring(0, text.indexOf("\r\n")).split(" ");
    return new Response(Integer.parseInt(statusLine[1]), headers, text.substring(headEnd + 4));
  }

  private static long contentLength(String text, int headEnd) {
    String length = headers(text.substring(0, headEnd)).get("content-length");
    return length == null ? -1 : Long.parseLong(length);
  }

  private static Map<String, String> headers(String head) {
    String[] lines = head.split("\r\n");
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(
          lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
          lines[i].substring(colon + 1).strip());
    }
    return headers;
  }
}
