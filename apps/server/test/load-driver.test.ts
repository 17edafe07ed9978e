/**
 * The bench's load driver (scripts/bench/load-runner.ts, `runSocketLoad`) against scripted HTTP/1.1 servers: it finds
 * the end of an answer by its Content-Length (split across packets), cycles its requests, counts a connection the
 * server ends as an error while the others carry the load on, gives up on a stuck server after its timeout, and fails
 * the load on an answer without a length (chunked) instead of waiting on it.
 */
import { once } from "node:events";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { http1Answer, runSocketLoad, type HttpRequestSpec } from "../../../scripts/bench/load-runner.ts";

const JSON_HEAD = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n";
const withLength = (body: string, status = "200 OK", extra = "") => `HTTP/1.1 ${status}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const CHUNKED = `${JSON_HEAD}transfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`;

const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A server that calls `answer` with each request's first line as it arrives on a connection (requests are small: one packet each). */
async function scripted(answer: (socket: Socket, requestLine: string, index: number) => void): Promise<string> {
  let index = 0;
  const server = createServer((socket) => {
    socket.on("error", () => {});
    socket.setEncoding("latin1").on("data", (request: string) => answer(socket, request.slice(0, request.indexOf("\r\n")), index++));
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const get = (path: string): HttpRequestSpec => ({ method: "GET", path });

describe("http1Answer", () => {
  it("finds where an answer ends by its Content-Length, and waits for the rest of a partial one", () => {
    const answer = Buffer.from(withLength('{"ok":true}', "200 OK", "Connection: close\r\n") + "HTTP/1.1 next");
    expect(http1Answer(answer)).toEqual({ status: "200", end: answer.length - "HTTP/1.1 next".length, close: true });
    expect(http1Answer(answer.subarray(0, 40))).toBeUndefined();
  });

  it("throws on an answer without a content-length, chunked or not, whose end it cannot find by its length", () => {
    expect(() => http1Answer(Buffer.from(CHUNKED))).toThrow(/without a content-length/);
    expect(() => http1Answer(Buffer.from(`${JSON_HEAD}\r\n{}`))).toThrow(/without a content-length/);
  });
});

describe("runSocketLoad", () => {
  it("sends `amount` requests, cycling through them, and counts answers split across packets", async () => {
    const seen: string[] = [];
    const url = await scripted((socket, line, i) => {
      seen.push(line);
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
    const url = await scripted((socket, _line, i) => {
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
