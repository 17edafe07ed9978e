/**
 * The bench's HTTP/1.1 client and load driver (scripts/bench/load-runner.ts, `openConnection` and `runSocketLoad`)
 * against scripted servers: a connection finds the end of an answer by its Content-Length (split across packets) and
 * hands back its status and body, resolves undefined once the connection ended, and throws on an answer without a
 * length (chunked) instead of waiting on it. The load cycles its requests, counts a connection the server ends as an
 * error while the others carry the load on, gives up on a stuck server after its timeout, and fails on that throw.
 */
import { once } from "node:events";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { openConnection, runSocketLoad, type HttpRequestSpec } from "../../../scripts/bench/load-runner.ts";

const withLength = (body: string, status = "200 OK", extra = "") => `HTTP/1.1 ${status}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const CHUNKED = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n";

const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A server that calls `answer` with each request as it arrives on a connection (requests are small: one packet each). */
async function scripted(answer: (socket: Socket, request: string, index: number) => void): Promise<string> {
  let index = 0;
  const server = createServer((socket) => {
    socket.on("error", () => {});
    socket.setEncoding("latin1").on("data", (request: string) => answer(socket, request, index++));
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const firstLine = (request: string) => request.slice(0, request.indexOf("\r\n"));
const get = (path: string): HttpRequestSpec => ({ method: "GET", path });

describe("openConnection", () => {
  it("sends a request with its length and answers the status and body of an answer split across packets", async () => {
    const seen: string[] = [];
    const url = await scripted((socket, request) => {
      seen.push(request);
      const answer = withLength('{"otp":"123456"}', "200 OK", "Connection: close\r\n");
      socket.write(answer.slice(0, 30));
      setImmediate(() => socket.end(answer.slice(30)));
    });
    const connection = await openConnection(url);
    const answer = await connection.request({ method: "POST", path: "/x", headers: { "content-type": "application/json" }, body: '{"a":"é"}' });
    const sent = `POST /x HTTP/1.1\r\nhost: ${url.slice("http://".length)}\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n{"a":"é"}`;
    expect(seen.map((request) => Buffer.from(request, "latin1").toString())).toEqual([sent]);
    expect(answer).toMatchObject({ status: 200, close: true });
    expect(answer?.body.toString()).toBe('{"otp":"123456"}');
    // The server ended the connection after that answer: the next request has none.
    expect(await connection.request(get("/y"))).toBeUndefined();
    connection.close();
  });

  it("answers undefined when the server resets the connection, or does not answer within the timeout", async () => {
    const url = await scripted((socket, request) => {
      if (firstLine(request) === "GET /reset HTTP/1.1") socket.destroy();
    });
    const [reset, stuck] = await Promise.all([openConnection(url), openConnection(url, undefined, 50)]);
    expect(await reset.request(get("/reset"))).toBeUndefined();
    expect(await stuck.request(get("/stuck"))).toBeUndefined();
  });

  it("throws on an answer without a content-length, whose end it cannot find by its length", async () => {
    const url = await scripted((socket) => socket.write(CHUNKED));
    const connection = await openConnection(url);
    await expect(connection.request(get("/healthz"))).rejects.toThrow(/without a content-length/);
  });
});

describe("runSocketLoad", () => {
  it("sends `amount` requests, cycling through them, and counts answers split across packets", async () => {
    const seen: string[] = [];
    const url = await scripted((socket, request, i) => {
      seen.push(firstLine(request));
      const answer = i % 2 === 0 ? withLength('{"a":1}') : withLength("{}", "404 Not Found");
      socket.write(answer.slice(0, 30));
      setImmediate(() => socket.write(answer.slice(30)));
    });
    const result = await runSocketLoad({ kind: "load", url, connections: 1, amount: 6, requests: [get("/a"), get("/b"), get("/c")] });
    expect(seen).toEqual(["GET /a HTTP/1.1", "GET /b HTTP/1.1", "GET /c HTTP/1.1", "GET /a HTTP/1.1", "GET /b HTTP/1.1", "GET /c HTTP/1.1"]);
    expect(result).toMatchObject({ count: 3, non2xx: 3, errors: 0, statusCodes: { 200: 3, 404: 3 } });
    expect(result.p99Ms).toBeGreaterThan(0);
  });

  it("ends a connection the server closes, as an error, and carries the load on the others", async () => {
    const url = await scripted((socket, _request, i) => {
      if (i === 1) socket.end(withLength("{}", "429 Too Many Requests", "connection: close\r\n"));
      else if (i === 2) socket.destroy();
      else socket.write(withLength("{}"));
    });
    const result = await runSocketLoad({ kind: "load", url, connections: 3, amount: 20, requests: [get("/healthz")] });
    expect(result).toMatchObject({ non2xx: 1, errors: 2, statusCodes: { 429: 1 } });
    expect(result.count).toBe(20 - 2);
  });

  it("gives up on a server that never answers after the timeout, counting each connection an error", async () => {
    const url = await scripted(() => {});
    const result = await runSocketLoad({ kind: "load", url, connections: 2, amount: 10, requests: [get("/healthz")] }, 50);
    expect(result).toMatchObject({ count: 0, non2xx: 0, errors: 2, rps: 0 });
  });

  it("counts a server that is not there as errors, one per connection", async () => {
    const url = await scripted(() => {});
    servers.pop()!.close();
    const result = await runSocketLoad({ kind: "load", url, connections: 2, amount: 10, requests: [get("/healthz")] });
    expect(result).toMatchObject({ count: 0, errors: 2 });
  });

  it("fails the load on an answer without a length", async () => {
    const url = await scripted((socket) => socket.write(CHUNKED));
    await expect(runSocketLoad({ kind: "load", url, connections: 2, amount: 10, requests: [get("/healthz")] })).rejects.toThrow(/without a content-length/);
  });

  it("connects from `localAddress`, and stops sending once `duration` has passed", async () => {
    const peers = new Set<string | undefined>();
    const url = await scripted((socket) => {
      peers.add(socket.remoteAddress);
      socket.write(withLength("{}"));
    });
    const result = await runSocketLoad({ kind: "load", url, connections: 2, duration: 0.05, requests: [get("/healthz")], localAddress: "127.0.0.2" });
    expect([...peers]).toEqual(["127.0.0.2"]);
    expect(result.count).toBeGreaterThan(0);
    expect(result.errors).toBe(0);
  });
});
