import { createServer as createHttp1Server, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from "node:http2";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";

export type RequestHandler = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void;

const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
/** How much of a refused body is read and dropped after the response, and for how long, before the connection is cut. */
const DRAIN_MAX_BYTES = 16 * 1024 * 1024;
const DRAIN_MAX_MS = 2_000;

export interface DualProtocolServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, lets in-flight requests finish, then closes every connection; forces after `timeoutMs`. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * One port for HTTP/1.1 (browsers, gRPC-Web, Connect, JSON routes) and cleartext HTTP/2 with
 * prior knowledge (gRPC, buf curl): the first bytes of each connection pick the protocol, since
 * browsers never speak h2c and `allowHTTP1` works only with TLS.
 */
export function createDualProtocolServer(handler: RequestHandler): DualProtocolServer {
  const http1 = createHttp1Server({ keepAliveTimeout: 5_000 });
  const http2 = createHttp2Server({}, handler);
  const sockets = new Set<Socket>();
  const inFlight = new Map<Socket, number>();
  const sessions = new Set<ServerHttp2Session>();
  const http2Sockets = new WeakSet<Socket>();
  let closing = false;

  http1.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    // A declared body too large to drain, should the handler refuse it, goes on a connection that closes with the response.
    if (closing || Number(req.headers["content-length"] ?? 0) > DRAIN_MAX_BYTES) res.setHeader("connection", "close");
    res.on("finish", () => {
      if (!req.complete) drainRefusedBody(req, socket);
    });
    res.on("close", () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      if (closing && left === 0) socket.destroySoon();
    });
  });
  // After the bookkeeping above, so its headers are set before the handler can answer.
  http1.on("request", handler);
  http2.on("session", (session: ServerHttp2Session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
    if (closing) session.close();
  });

  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      inFlight.delete(socket);
    });
    socket.on("error", () => socket.destroy());
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk);
      const probe = chunk.subarray(0, HTTP2_PREFACE.length);
      // http2 reads the unshifted bytes itself and takes over the handle: resuming would race it.
      if (HTTP2_PREFACE.subarray(0, probe.length).equals(probe)) {
        http2Sockets.add(socket);
        http2.emit("connection", socket);
      } else {
        http1.emit("connection", socket);
        socket.resume();
      }
    });
  });

  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve(server.address() as AddressInfo);
        });
      }),
    close: async (timeoutMs) => {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      for (const socket of sockets) if (!http2Sockets.has(socket) && (inFlight.get(socket) ?? 0) === 0) socket.destroySoon();
      const forced = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, timeoutMs);
      await stopped;
      clearTimeout(forced);
    },
  };
}

/**
 * Reads and drops the rest of a body the handler refused unread, so the client, which may still be
 * writing it, gets the response already sent (closing on unread data makes the kernel reset the
 * connection, and the client loses the response) and the connection stays usable. Bounded: past
 * `DRAIN_MAX_BYTES` or `DRAIN_MAX_MS` the connection is cut instead.
 */
function drainRefusedBody(req: IncomingMessage, socket: Socket): void {
  let drained = 0;
  const stop = () => {
    clearTimeout(timer);
    req.off("data", onData);
  };
  const cut = () => {
    stop();
    socket.destroy();
  };
  const onData = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_MAX_BYTES) cut();
  };
  // Unref'd: a drain in progress never holds up a shutdown.
  const timer = setTimeout(cut, DRAIN_MAX_MS).unref();
  req.on("data", onData);
  req.once("end", stop);
  req.once("close", stop);
  req.resume();
}
