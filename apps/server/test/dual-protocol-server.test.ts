import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONNECTION_LIMITS } from "../src/connection-limits.ts";
import { createDualProtocolServer, type DualProtocolServer, type RequestHandler } from "../src/dual-protocol-server.ts";
import { DRAIN_MAX_BYTES } from "../src/refused-body.ts";

/** Refuses every POST at once, its body unread, as the RPC and JSON handlers do with a body over their cap. */
const refuseUnread: RequestHandler = (req, res) => {
  const [status, body] = req.method === "POST" ? [413, "too large"] : [200, "ok"];
  res.statusCode = status;
  res.setHeader("content-type", "text/plain");
  res.setHeader("content-length", String(body.length));
  res.end(body);
};

function write(socket: Socket, data: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve())));
}

/** Resolves with everything received once `text` has arrived. */
function waitFor(socket: Socket, received: { text: string }, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (received.text.includes(text)) {
        socket.off("data", check);
        resolve(received.text);
      }
    };
    socket.on("data", check);
    socket.once("error", reject);
    check();
  });
}

describe("dual-protocol server: a body the handler refused unread", () => {
  let server: DualProtocolServer;
  let socket: Socket;
  const received = { text: "" };

  async function open(): Promise<void> {
    server = createDualProtocolServer(refuseUnread);
    const { port } = await server.listen(0, "127.0.0.1");
    socket = connect(port, "127.0.0.1");
    received.text = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => (received.text += chunk));
  }

  afterEach(async () => {
    socket?.destroy();
    await server.close(1_000);
  });

  it("is drained when no larger than DRAIN_MAX_BYTES, so a client still writing it gets the response and can reuse the connection", async () => {
    await open();
    const bodyLength = DRAIN_MAX_BYTES;
    await write(socket, `POST /x HTTP/1.1\r\nhost: localhost\r\ncontent-length: ${bodyLength}\r\n\r\n`);
    await write(socket, Buffer.alloc(bodyLength / 4, "a"));
    await waitFor(socket, received, "too large");
    // The response is out; the client only now sends the rest of its body, then a second request.
    await write(socket, Buffer.alloc((bodyLength * 3) / 4, "a"));
    await write(socket, "GET /y HTTP/1.1\r\nhost: localhost\r\n\r\n");
    const all = await waitFor(socket, received, "\r\n\r\nok");
    expect(all).toMatch(/^HTTP\/1\.1 413 [\s\S]*too largeHTTP\/1\.1 200 [\s\S]*ok$/);
  });

  it("is refused on a closing connection when its declared length is too large to drain", async () => {
    await open();
    await write(socket, `POST /x HTTP/1.1\r\nhost: localhost\r\ncontent-length: ${64 * 1024 * 1024}\r\n\r\n`);
    const response = await waitFor(socket, received, "too large");
    expect(response.toLowerCase()).toContain("connection: close");
  });

  it("past DRAIN_MAX_BYTES gets its answer every time, then FIN, while the client is still unable to finish writing it", async () => {
    server = createDualProtocolServer(refuseUnread, { ...DEFAULT_CONNECTION_LIMITS, maxConnectionsPerIp: 1_000 });
    const { port } = await server.listen(0, "127.0.0.1");
    // Well past what the kernel's buffers on both sides take in while the server reads none of it.
    const body = Buffer.alloc(16 * 1024 * 1024, "a");
    const refusedSave = () =>
      new Promise<{ answer: string; fin: boolean; wroteAll: boolean }>((resolve) => {
        const client = connect(port, "127.0.0.1");
        let answer = "";
        let fin = false;
        let wroteAll = false;
        client.setEncoding("utf8").on("data", (chunk: string) => (answer += chunk));
        client.on("error", () => {});
        client.once("end", () => (fin = true));
        client.write(`POST /x HTTP/1.1\r\nhost: localhost\r\ncontent-length: ${body.length}\r\n\r\n`);
        client.write(body, (error) => {
          if (error) return;
          // Written whole: the server read it all (or the kernel took it in), nothing is left to stall.
          wroteAll = true;
          client.destroy();
        });
        client.once("close", () => resolve({ answer, fin, wroteAll }));
      });
    // Ten at a time, each until the server closes its connection, so every lingering connection is seen to close.
    const results = (
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          const each = [];
          for (let i = 0; i < 10; i++) each.push(await refusedSave());
          return each;
        }),
      )
    ).flat();
    const unanswered = results.filter(
      ({ answer, fin, wroteAll }) => wroteAll || !fin || !/^HTTP\/1\.1 413 [\s\S]*connection: close[\s\S]*too large$/i.test(answer),
    );
    expect(unanswered).toEqual([]);
  });
});
