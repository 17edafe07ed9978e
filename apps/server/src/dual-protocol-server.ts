import { createServer as createHttp1Server, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from "node:http2";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";

export type RequestHandler = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void;

const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

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
export interface DualProtocolServerOptions {
  /** The largest request body the handler reads; a larger declared body gets `Connection: close`. */
  readonly maxBodyBytes: number;
}

export function createDualProtocolServer(handler: RequestHandler, options: DualProtocolServerOptions): DualProtocolServer {
  const http1 = createHttp1Server({ keepAliveTimeout: 5_000 }, handler);
  const http2 = createHttp2Server({}, handler);
  const sockets = new Set<Socket>();
  const inFlight = new Map<Socket, number>();
  const sessions = new Set<ServerHttp2Session>();
  const http2Sockets = new WeakSet<Socket>();
  let closing = false;

  http1.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    if (closing) res.setHeader("connection", "close");
    // An oversized body is refused unread; the connection then carries its rest, so it must not be
    // reused: announce the close up front when the length is declared, and close after the
    // response in any case.
    if (Number(req.headers["content-length"] ?? 0) > options.maxBodyBytes) res.setHeader("connection", "close");
    res.on("finish", () => {
      if (!req.complete) socket.destroySoon();
    });
    res.on("close", () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      if (closing && left === 0) socket.destroySoon();
    });
  });
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
