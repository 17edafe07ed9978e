import { createServer as createHttp1Server, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from "node:http2";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { SMALL_BODY_BYTES } from "@gatehouse/transport-connect";
import { connectionGroup, DEFAULT_CONNECTION_LIMITS, type ConnectionCap, type ConnectionLimits } from "./connection-limits.ts";
import { applyHttp2StreamLimits } from "./http2-stream-limits.ts";
import { closeLingering, drainRefusedBody, tooLargeToDrain } from "./refused-body.ts";

export type RequestHandler = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void;

const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
/** How often Node looks for HTTP/1.1 requests past their headers or request timeout (its default is 30 s). */
const MAX_TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** What a refused connection is told: try again in a second, when a slot has likely freed. */
const REFUSAL_RETRY_AFTER_SECONDS = 1;
const REFUSAL_BODY = JSON.stringify({ error: { code: "unavailable", message: "too many connections: retry shortly" } });
const HTTP1_REFUSAL = Buffer.from(
  "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n" +
    `retry-after: ${REFUSAL_RETRY_AFTER_SECONDS}\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(REFUSAL_BODY)}\r\n\r\n${REFUSAL_BODY}`,
);
/**
 * HTTP/2 has no status before a stream: the server's (empty) SETTINGS, which must come first, then GOAWAY with last
 * stream 0 and NO_ERROR, which tells the client that nothing was processed and it may retry on a new connection.
 */
const HTTP2_REFUSAL = Buffer.from([0, 0, 0, 0x4, 0, 0, 0, 0, 0, 0, 0, 8, 0x7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
/** A refused connection waits at most this for its request and then for the client to close, so it is answered, not reset. */
const REFUSAL_LINGER_MS = 2_000;

/** Told of every refused connection (which cap, and the address group for `per_address`) and of the open count. */
export interface ConnectionObserver {
  refused(cap: ConnectionCap, group: string | undefined): void;
  opened(open: number): void;
}

const NO_OBSERVER: ConnectionObserver = { refused: () => {}, opened: () => {} };

export interface DualProtocolServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  /**
   * Shutdown's first step: keeps accepting and serving, but every response from now on closes its
   * connection (HTTP/1.1 `Connection: close`, HTTP/2 GOAWAY once the stream is in), so no client is
   * left holding a connection that will close under its next request.
   */
  drain(): void;
  /** Stops accepting, lets in-flight requests finish, then closes every connection; forces after `timeoutMs`. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * One port for HTTP/1.1 (browsers, gRPC-Web, Connect, JSON routes) and cleartext HTTP/2 with
 * prior knowledge (gRPC, buf curl): the first bytes of each connection pick the protocol, since
 * browsers never speak h2c and `allowHTTP1` works only with TLS.
 */
export function createDualProtocolServer(
  handler: RequestHandler,
  limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS,
  observer: ConnectionObserver = NO_OBSERVER,
): DualProtocolServer {
  const http1 = createHttp1Server({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
    connectionsCheckingInterval: Math.min(MAX_TIMEOUT_CHECK_INTERVAL_MS, Math.max(10, Math.floor(limits.headersTimeoutMs / 4))),
  });
  // Node checks headersTimeout and requestTimeout only on a server that emitted 'listening' (that
  // starts its connection tracking); this one never listens, the sniffer hands it its sockets.
  http1.emit("listening");
  const http2 = createHttp2Server(
    {
      maxSessionMemory: limits.http2MaxSessionMemoryMb,
      // A stream's window is one small body: what a client may send before the server reads, for every method
      // (a larger body, past its bearer token check, is read as it comes and the window reopens as it is).
      settings: { maxConcurrentStreams: limits.http2MaxConcurrentStreams, maxHeaderListSize: limits.maxHeaderBytes, initialWindowSize: SMALL_BODY_BYTES },
    },
    handler,
  );
  const sockets = new Set<Socket>();
  const inFlight = new Map<Socket, number>();
  const sessions = new Set<ServerHttp2Session>();
  const http2Sockets = new WeakSet<Socket>();
  /** HTTP/1.1 connections that carried a request: only these can be idle keep-alives, closed at once on shutdown. */
  const served = new WeakSet<Socket>();
  let closing = false;
  /** The listener is closing: a session that still arrives gets its GOAWAY at once. */
  let listenerClosing = false;

  http1.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    served.add(socket);
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    let lingering = false;
    // Decided as the response starts, not as the request came: one that arrived before shutdown and is answered
    // after it must say that the connection closes, or the client sends its next request into the close; and only
    // a body the handler answered before it was all in is left unread.
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      if (!this.headersSent) {
        lingering = tooLargeToDrain(req);
        if (lingering) closeLingering(socket);
        if (closing || lingering) this.setHeader("connection", "close");
      }
      return Reflect.apply(writeHead, this, args) as ServerResponse;
    } as typeof res.writeHead;
    res.on("finish", () => {
      if (!req.complete && !lingering) drainRefusedBody(req, socket);
    });
    res.on("close", () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      // Draining, the response said `Connection: close` and Node closes the connection itself; once the listener
      // closes, a connection left without a request is closed.
      if (listenerClosing && left === 0) socket.destroySoon();
    });
  });
  // After the bookkeeping above, so its headers are set before the handler can answer.
  http1.on("request", handler);
  http2.on("session", (session: ServerHttp2Session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
    applyHttp2StreamLimits(session, limits);
    if (listenerClosing) session.close();
  });
  // Draining: GOAWAY right after each stream arrives, so the stream is still served (its id is the last one).
  http2.on("stream", (stream) => {
    if (closing) stream.session?.close();
  });

  const perAddress = new Map<string, number>();
  /** Refused connections being answered: bounded, so a flood past every cap costs a closed socket, not memory. */
  const refusing = new Set<Socket>();
  const maxRefusing = Math.max(16, Math.ceil(limits.maxConnections / 10));
  const refuse = (socket: Socket, cap: ConnectionCap, group: string | undefined) => {
    observer.refused(cap, group);
    if (refusing.size >= maxRefusing || listenerClosing) {
      socket.destroy();
      return;
    }
    refusing.add(socket);
    const linger = setTimeout(() => socket.destroy(), Math.min(REFUSAL_LINGER_MS, limits.firstBytesTimeoutMs));
    socket.once("close", () => {
      clearTimeout(linger);
      refusing.delete(socket);
    });
    socket.on("error", () => socket.destroy());
    // Answered once the request's first bytes tell the protocol; the rest is read and dropped until the client closes,
    // since closing with unread bytes would reset the connection under the answer.
    socket.once("data", (chunk: Buffer) => {
      const seen = Math.min(chunk.length, HTTP2_PREFACE.length);
      const http2 = seen >= 3 && chunk.subarray(0, seen).equals(HTTP2_PREFACE.subarray(0, seen));
      socket.end(http2 ? HTTP2_REFUSAL : HTTP1_REFUSAL);
    });
  };

  const server = createNetServer((socket) => {
    // Counted on the peer the kernel saw, never a header.
    const group = limits.behindProxy ? undefined : connectionGroup(socket.remoteAddress ?? "unknown");
    if (sockets.size >= limits.maxConnections) return refuse(socket, "total", undefined);
    if (group !== undefined) {
      const open = perAddress.get(group) ?? 0;
      if (open >= limits.maxConnectionsPerIp) return refuse(socket, "per_address", group);
      perAddress.set(group, open + 1);
    }
    sockets.add(socket);
    observer.opened(sockets.size);
    socket.on("close", () => {
      if (group !== undefined) {
        const left = (perAddress.get(group) ?? 1) - 1;
        if (left === 0) perAddress.delete(group);
        else perAddress.set(group, left);
      }
      sockets.delete(socket);
      inFlight.delete(socket);
      observer.opened(sockets.size);
    });
    socket.on("error", () => socket.destroy());
    // Absolute, not idle: one byte every few seconds must not hold the connection open either.
    const deadline = setTimeout(() => socket.destroy(), limits.firstBytesTimeoutMs);
    socket.once("close", () => clearTimeout(deadline));
    let received: Buffer = Buffer.alloc(0);
    const sniff = (chunk: Buffer) => {
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
      const seen = Math.min(received.length, HTTP2_PREFACE.length);
      const http2Preface = received.subarray(0, seen).equals(HTTP2_PREFACE.subarray(0, seen));
      // "P" may begin POST or the preface: wait until the bytes tell them apart.
      if (http2Preface && seen < HTTP2_PREFACE.length) return;
      clearTimeout(deadline);
      socket.off("data", sniff);
      socket.pause();
      socket.unshift(received);
      // http2 reads the unshifted bytes itself and takes over the handle: resuming would race it.
      if (http2Preface) {
        http2Sockets.add(socket);
        http2.emit("connection", socket);
      } else {
        http1.emit("connection", socket);
        socket.resume();
      }
    };
    socket.on("data", sniff);
  });
  // The backstop past the refusals being answered: the kernel's connection is closed at once.
  server.maxConnections = limits.maxConnections + maxRefusing;
  server.on("drop", () => observer.refused("total", undefined));

  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve(server.address() as AddressInfo);
        });
      }),
    drain: () => {
      closing = true;
      for (const session of sessions) session.close();
    },
    close: async (timeoutMs) => {
      closing = true;
      listenerClosing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      // An idle keep-alive connection closes now. One accepted just before the listener closed, whose request
      // is still on its way, is not idle: it is answered (with `Connection: close`) or meets its first-bytes
      // or headers timeout. Closing it would drop a request the client already sent.
      for (const socket of sockets) if (served.has(socket) && !http2Sockets.has(socket) && (inFlight.get(socket) ?? 0) === 0) socket.destroySoon();
      for (const socket of refusing) socket.destroy();
      const forced = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, timeoutMs);
      await stopped;
      clearTimeout(forced);
      // Stops the HTTP/1.1 timeout checks (last: http1's close would also close the connections spared above);
      // it never listened, so the error it reports is moot.
      http1.close(() => {});
    },
  };
}
