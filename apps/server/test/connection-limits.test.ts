import { connect as connectHttp2, constants, type ClientHttp2Session } from "node:http2";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONNECTION_LIMITS, type ConnectionCap, type ConnectionLimits } from "../src/connection-limits.ts";
import { createDualProtocolServer, type DualProtocolServer, type RequestHandler } from "../src/dual-protocol-server.ts";

const LIMITS: ConnectionLimits = {
  ...DEFAULT_CONNECTION_LIMITS,
  firstBytesTimeoutMs: 150,
  headersTimeoutMs: 150,
  requestTimeoutMs: 300,
  keepAliveTimeoutMs: 150,
};
/** Room for a loaded machine: a limit is proven by the lower bound and by closing at all. */
const SLACK_MS = 1_000;
/** Node keeps an HTTP/1.1 connection this much past its advertised keep-alive, so a client never reuses one being closed. */
const NODE_KEEP_ALIVE_BUFFER_MS = 1_000;
const HTTP2_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/**
 * Answers at once; `/upload` reads the body to its end; `/refuse` reads 1 KiB of it, then refuses
 * it, as a body over a cap is, with a trailer as gRPC sends its status.
 */
const handler: RequestHandler = (req, res) => {
  if (req.url === "/upload") {
    req.resume();
    req.on("end", () => res.end("uploaded"));
    return;
  }
  if (req.url === "/refuse") {
    let read = 0;
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read < 1024) return;
      req.off("data", onData);
      req.pause();
      res.statusCode = 413;
      res.setHeader("content-type", "text/plain");
      res.addTrailers({ "x-refused": "yes" });
      res.end("too large");
    };
    req.on("data", onData);
    return;
  }
  res.end("ok");
};

let server: DualProtocolServer;
let port: number;
let refusals: { cap: ConnectionCap; group: string | undefined }[] = [];
let openCount = 0;
const opened: { destroy(): void }[] = [];

async function start(limits: ConnectionLimits = LIMITS): Promise<void> {
  refusals = [];
  server = createDualProtocolServer(handler, limits, { refused: (cap, group) => refusals.push({ cap, group }), opened: (open) => (openCount = open) });
  ({ port } = await server.listen(0, "127.0.0.1"));
}

afterEach(async () => {
  for (const each of opened.splice(0)) each.destroy();
  await server.close(500);
});

interface RawConnection {
  readonly socket: Socket;
  /** Everything received so far. */
  text(): string;
  /** Milliseconds from connecting until the server closed the connection. */
  readonly closed: Promise<number>;
}

/** Times are measured from before connecting, so the server's timers started later: elapsed time is never less than a limit. */
async function rawConnection(localAddress?: string): Promise<RawConnection> {
  const connectedAt = performance.now();
  const socket = connect({ port, host: "127.0.0.1", ...(localAddress === undefined ? {} : { localAddress }) });
  opened.push(socket);
  let received = "";
  socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk));
  socket.on("error", () => {});
  await new Promise((resolve) => socket.once("connect", resolve));
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(performance.now() - connectedAt)));
  return { socket, text: () => received, closed };
}

/** Writes `data` one character every `everyMs` until the connection closes. */
function trickle(socket: Socket, data: string, everyMs: number): void {
  let next = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || next >= data.length) return clearInterval(timer);
    socket.write(data[next++]!);
  }, everyMs);
  socket.once("close", () => clearInterval(timer));
}

function expectClosedAfter(elapsedMs: number, limitMs: number, slackMs = SLACK_MS): void {
  expect(elapsedMs).toBeGreaterThanOrEqual(limitMs - 1);
  expect(elapsedMs).toBeLessThan(limitMs + slackMs);
}

interface Http2Connection {
  readonly session: ClientHttp2Session;
  readonly settings: Promise<ClientHttp2Session["remoteSettings"]>;
  readonly closed: Promise<number>;
}

async function http2Session(): Promise<Http2Connection> {
  const connectedAt = performance.now();
  const session = connectHttp2(`http://127.0.0.1:${port}`);
  opened.push(session);
  session.on("error", () => {});
  const settings = new Promise<ClientHttp2Session["remoteSettings"]>((resolve) => session.once("remoteSettings", resolve));
  const closed = new Promise<number>((resolve) => session.once("close", () => resolve(performance.now() - connectedAt)));
  await new Promise((resolve) => session.once("connect", resolve));
  return { session, settings, closed };
}

describe("connection limits: the first bytes", () => {
  it("a connection that sends nothing is closed after FIRST_BYTES_TIMEOUT_MS", async () => {
    await start();
    const connection = await rawConnection();
    expectClosedAfter(await connection.closed, LIMITS.firstBytesTimeoutMs);
    expect(connection.text()).toBe("");
  });

  it("one byte that could begin either protocol, then silence, is closed after FIRST_BYTES_TIMEOUT_MS", async () => {
    await start();
    const connection = await rawConnection();
    connection.socket.write("P");
    expectClosedAfter(await connection.closed, LIMITS.firstBytesTimeoutMs);
  });

  it("an HTTP/2 preface trickled a byte at a time is closed after FIRST_BYTES_TIMEOUT_MS: the deadline is absolute", async () => {
    await start();
    const connection = await rawConnection();
    trickle(connection.socket, HTTP2_PREFACE, 20);
    expectClosedAfter(await connection.closed, LIMITS.firstBytesTimeoutMs);
  });

  it("a request split after its first byte is still served over HTTP/1.1", async () => {
    await start();
    const connection = await rawConnection();
    connection.socket.write("P");
    await new Promise((resolve) => setTimeout(resolve, 20));
    connection.socket.write("OST /upload HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\nconnection: close\r\n\r\nab");
    await connection.closed;
    expect(connection.text()).toMatch(/^HTTP\/1\.1 200 [\s\S]*uploaded$/);
  });
});

describe("connection limits: HTTP/1.1", () => {
  it("partial headers, then silence: 408 and closed after HEADERS_TIMEOUT_MS", async () => {
    await start();
    const connection = await rawConnection();
    connection.socket.write("GET / HTTP/1.1\r\nhost: x\r\n");
    expectClosedAfter(await connection.closed, LIMITS.headersTimeoutMs);
    expect(connection.text()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("headers trickled a byte every 20 ms: 408 and closed after HEADERS_TIMEOUT_MS", async () => {
    await start();
    const connection = await rawConnection();
    connection.socket.write("GET / HTTP/1.1\r\nhost: x\r\n");
    trickle(connection.socket, `x-slow: ${"a".repeat(1000)}`, 20);
    expectClosedAfter(await connection.closed, LIMITS.headersTimeoutMs);
    expect(connection.text()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("a body that never finishes: 408 and closed after REQUEST_TIMEOUT_MS", async () => {
    await start();
    const connection = await rawConnection();
    connection.socket.write("POST /upload HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n");
    trickle(connection.socket, "a".repeat(1000), 20);
    expectClosedAfter(await connection.closed, LIMITS.requestTimeoutMs);
    expect(connection.text()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS (plus Node's buffer), not before", async () => {
    await start();
    const connection = await rawConnection();
    connection.socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    const elapsed = await connection.closed;
    expect(connection.text()).toMatch(/^HTTP\/1\.1 200 [\s\S]*keep-alive: timeout=0[\s\S]*ok$/i);
    expectClosedAfter(elapsed, LIMITS.keepAliveTimeoutMs, NODE_KEEP_ALIVE_BUFFER_MS + SLACK_MS);
  });

  it("a second request trickled on a kept-alive connection is closed after HEADERS_TIMEOUT_MS", async () => {
    await start({ ...LIMITS, keepAliveTimeoutMs: 5_000 });
    const connection = await rawConnection();
    connection.socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\nGET / HTTP/1.1\r\nhost: x\r\n");
    trickle(connection.socket, `x-slow: ${"a".repeat(1000)}`, 20);
    expectClosedAfter(await connection.closed, LIMITS.headersTimeoutMs);
    expect(connection.text()).toMatch(/ok[\s\S]*HTTP\/1\.1 408 /);
  });

  it("a refused chunked body that never finishes gets its 413 saying the connection closes, then the server ends the connection", async () => {
    await start();
    const connection = await rawConnection();
    const ended = new Promise((resolve) => connection.socket.once("end", resolve));
    connection.socket.write(`POST /refuse HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n800\r\n${"a".repeat(2048)}\r\n`);
    // Its length unknown, the rest is not drained: the answer is followed by FIN while the body is still coming.
    trickle(connection.socket, "4\r\nabcd\r\n".repeat(1000), 5);
    await ended;
    expect(connection.text()).toMatch(/^HTTP\/1\.1 413 [\s\S]*connection: close[\s\S]*too large/i);
  });
});

describe("connection limits: HTTP/2", () => {
  it("advertises SETTINGS_MAX_CONCURRENT_STREAMS and SETTINGS_MAX_HEADER_LIST_SIZE from the limits", async () => {
    await start();
    const settings = await (await http2Session()).settings;
    expect(settings.maxConcurrentStreams).toBe(DEFAULT_CONNECTION_LIMITS.http2MaxConcurrentStreams);
    expect(settings.maxHeaderListSize).toBe(DEFAULT_CONNECTION_LIMITS.maxHeaderBytes);
  });

  it("the preface alone, kept busy with PINGs, is closed after KEEP_ALIVE_TIMEOUT_MS", async () => {
    await start();
    const { session, closed } = await http2Session();
    const pings = setInterval(() => session.ping(() => {}), 20);
    try {
      expectClosedAfter(await closed, LIMITS.keepAliveTimeoutMs);
    } finally {
      clearInterval(pings);
    }
  });

  it("a session idle after its request is closed after KEEP_ALIVE_TIMEOUT_MS", async () => {
    await start();
    const { session, closed } = await http2Session();
    // The server's idle time starts between the request and the moment this client sees its stream close, which on
    // a busy machine can be well after: the request bounds the idle time from below, the close seen from above.
    const requestedAt = performance.now();
    const stream = session.request({ ":path": "/" });
    stream.resume();
    await new Promise((resolve) => stream.once("close", resolve));
    const idleSeenFrom = performance.now();
    await closed;
    const closedAt = performance.now();
    expect(closedAt - requestedAt).toBeGreaterThanOrEqual(LIMITS.keepAliveTimeoutMs - 1);
    expect(closedAt - idleSeenFrom).toBeLessThan(LIMITS.keepAliveTimeoutMs + SLACK_MS);
  });

  it("a stream whose body never finishes is cancelled after REQUEST_TIMEOUT_MS", async () => {
    await start();
    const { session } = await http2Session();
    const stream = session.request({ ":method": "POST", ":path": "/upload" });
    stream.on("error", () => {});
    const openedAt = performance.now();
    const writes = setInterval(() => stream.write("a"), 20);
    await new Promise((resolve) => stream.once("close", resolve));
    clearInterval(writes);
    expectClosedAfter(performance.now() - openedAt, LIMITS.requestTimeoutMs);
    expect(stream.rstCode).toBe(constants.NGHTTP2_CANCEL);
  });

  it("a refused body still being sent gets its 413 and trailers, then RST_STREAM(NO_ERROR) ends the stream", async () => {
    await start({ ...LIMITS, requestTimeoutMs: 60_000 });
    const { session } = await http2Session();
    const stream = session.request({ ":method": "POST", ":path": "/refuse" });
    stream.on("error", () => {});
    let status = 0;
    let body = "";
    let trailer: unknown;
    stream.on("response", (headers) => (status = Number(headers[":status"])));
    stream.on("trailers", (trailers) => (trailer = trailers["x-refused"]));
    stream.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    const openedAt = performance.now();
    const writes = setInterval(() => {
      if (!stream.closed) stream.write(Buffer.alloc(512));
    }, 5);
    // A client that keeps writing sees the reset as the stream closing (its 'close' may wait on its own pending writes).
    await expect.poll(() => stream.closed, { timeout: SLACK_MS }).toBe(true);
    clearInterval(writes);
    expect(performance.now() - openedAt).toBeLessThan(SLACK_MS);
    await expect.poll(() => body).toBe("too large");
    expect({ status, body, trailer, rstCode: stream.rstCode }).toEqual({ status: 413, body: "too large", trailer: "yes", rstCode: constants.NGHTTP2_NO_ERROR });
  });
});

describe("connection limits: MAX_CONNECTIONS", () => {
  it("past the cap a new connection is refused at once, the open ones keep working, and a freed slot is usable again", async () => {
    await start({ ...LIMITS, maxConnections: 2, firstBytesTimeoutMs: 60_000, keepAliveTimeoutMs: 60_000 });
    const first = await rawConnection();
    const { session: second } = await http2Session();
    const third = await rawConnection();
    third.socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    // Answered, not reset: a load balancer or client sees a 503 it may retry.
    expect(await third.closed).toBeLessThan(SLACK_MS);
    expect(third.text()).toMatch(/^HTTP\/1\.1 503 [\s\S]*retry-after: 1\r\n[\s\S]*connection: close\r\n/i);
    expect(refusals).toEqual([{ cap: "total", group: undefined }]);
    expect(openCount).toBe(2);

    first.socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    const stream = second.request({ ":path": "/" });
    let h2Body = "";
    stream.setEncoding("utf8").on("data", (chunk: string) => (h2Body += chunk));
    await new Promise((resolve) => stream.once("end", resolve));
    await expect.poll(() => first.text()).toMatch(/ok$/);
    expect(h2Body).toBe("ok");

    first.socket.destroy();
    await first.closed;
    // The server learns of the close asynchronously: poll until it has a free slot.
    await expect
      .poll(async () => {
        const next = await rawConnection();
        next.socket.write("GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
        await next.closed;
        return next.text();
      })
      .toMatch(/ok$/);
  });
});

describe("connection limits: MAX_CONNECTIONS_PER_IP", () => {
  it("a legitimate client connects and is answered while one address group holds slow bodies in every slot it can", async () => {
    await start({ ...LIMITS, maxConnections: 40, maxConnectionsPerIp: 4, firstBytesTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
    // One /24 (127.0.0.1 and its neighbours, loopback all) opens as many connections as the whole server allows, each
    // a check-url whose body comes a byte at a time.
    const flood = await Promise.all(Array.from({ length: 40 }, (_, i) => rawConnection(`127.0.0.${1 + (i % 20)}`)));
    for (const { socket } of flood) {
      socket.write("POST /api/browser/check-url HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 4000\r\n\r\n{");
    }
    // Past its share the server answers the group's connections 503 and closes them at once.
    await expect.poll(() => flood.filter(({ socket }) => socket.destroyed).length, { timeout: SLACK_MS }).toBe(36);
    const refused = flood.filter(({ socket }) => socket.destroyed);
    expect(refused.every((connection) => /^HTTP\/1\.1 503 [\s\S]*retry-after: 1\r\n/i.test(connection.text()))).toBe(true);
    expect(refusals).toHaveLength(36);
    expect(new Set(refusals.map(({ cap, group }) => `${cap} ${group}`))).toEqual(new Set(["per_address 127.0.0.0/24"]));

    // Another group (127.0.1.0/24 is loopback too) still gets a slot and its answer.
    const legitimate = await rawConnection("127.0.1.1");
    legitimate.socket.write("GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    await legitimate.closed;
    expect(legitimate.text()).toMatch(/^HTTP\/1\.1 200 [\s\S]*ok$/);
  });

  it("an HTTP/2 connection past the cap gets SETTINGS and GOAWAY (nothing processed, retry), not a reset", async () => {
    await start({ ...LIMITS, maxConnections: 40, maxConnectionsPerIp: 1, firstBytesTimeoutMs: 60_000, keepAliveTimeoutMs: 60_000 });
    await http2Session();
    const second = connectHttp2(`http://127.0.0.1:${port}`);
    opened.push(second);
    const goaway = new Promise<number>((resolve) => second.once("goaway", (code: number) => resolve(code)));
    second.on("error", () => {});
    expect(await goaway).toBe(constants.NGHTTP2_NO_ERROR);
    expect(refusals).toEqual([{ cap: "per_address", group: "127.0.0.0/24" }]);
  });

  it("behind a proxy (TRUST_PROXY) the proxy's address is not capped: 40 connections from one address, past 1% of the slots, are all served", async () => {
    await start({ ...LIMITS, maxConnections: 100, maxConnectionsPerIp: 1, behindProxy: true, firstBytesTimeoutMs: 60_000, keepAliveTimeoutMs: 60_000 });
    const proxied = await Promise.all(Array.from({ length: 40 }, () => rawConnection()));
    for (const { socket } of proxied) socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    await expect.poll(() => proxied.every((connection) => /ok$/.test(connection.text()))).toBe(true);
    expect(refusals).toEqual([]);
    expect(openCount).toBe(40);
  });
});
