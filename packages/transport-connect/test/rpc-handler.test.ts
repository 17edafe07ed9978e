import { createServer as createHttp1Server, type Server } from "node:http";
import { connect as connectHttp2, createServer as createHttp2Server, type Http2Server } from "node:http2";
import { connect, type AddressInfo } from "node:net";
import { Code, createContextValues, type ConnectRouter } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DECODE_FAILURE_MESSAGE } from "../src/decode-failures.ts";
import { AuthService } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
import { errorInterceptor } from "../src/interceptors.ts";
import { createRpcHandler } from "../src/rpc-handler.ts";
import { createBodyBudget } from "../src/body-budget.ts";
import { GatehouseError } from "@gatehouse/core";

const LOGIN_PATH = "/gatehouse.v1.AuthService/Login";
/** Field 1 (email) promises 5 bytes and brings 1: protobuf-es fails with "premature EOF". */
const TRUNCATED_MESSAGE = Uint8Array.of(0x0a, 0x05, 0x61);

const unexpected: { error: unknown; method: string }[] = [];
const clientGone: string[] = [];

/** Login breaks as a server bug would; Logout answers. */
const routes = (router: ConnectRouter) =>
  router.service(AuthService, {
    login: () => {
      throw new Error("database exploded at /var/lib/secret.db");
    },
    logout: () => ({}),
  });

const handler = createRpcHandler({
  routes,
  interceptors: [errorInterceptor((error, method) => unexpected.push({ error, method }))],
  contextValues: () => createContextValues(),
  authenticate: () => Promise.reject(new GatehouseError("unauthenticated")),
  admitLargeBody: () => Promise.resolve(),
  bodyBudget: createBodyBudget(1024 * 1024),
  fallback: (_req, res) => {
    res.writeHead(404, {});
    res.end("");
  },
  onUnexpected: (error, method) => unexpected.push({ error, method }),
  onClientGone: (method) => clientGone.push(method),
});

let http1: Server;
let http2: Http2Server;
let http1Url: string;
let http2Url: string;

beforeAll(async () => {
  http1 = createHttp1Server(handler);
  http2 = createHttp2Server(handler);
  await Promise.all([
    new Promise<void>((resolve) => http1.listen(0, "127.0.0.1", resolve)),
    new Promise<void>((resolve) => http2.listen(0, "127.0.0.1", resolve)),
  ]);
  http1Url = `http://127.0.0.1:${(http1.address() as AddressInfo).port}`;
  http2Url = `http://127.0.0.1:${(http2.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all([new Promise((resolve) => http1.close(resolve)), new Promise((resolve) => http2.close(resolve))]);
});

function envelope(flags: number, data: Uint8Array): Uint8Array {
  const framed = new Uint8Array(5 + data.length);
  framed[0] = flags;
  new DataView(framed.buffer).setUint32(1, data.length);
  framed.set(data, 5);
  return framed;
}

/** One gRPC call over h2c; resolves with the status and message from the trailers (or a trailers-only response). */
function grpcCall(path: string, body: Uint8Array, headers: Record<string, string> = {}): Promise<{ status: string; message: string }> {
  return new Promise((resolve, reject) => {
    const session = connectHttp2(http2Url);
    session.on("error", reject);
    const stream = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers", ...headers });
    let fields: Record<string, unknown> = {};
    stream.on("response", (responseHeaders) => (fields = { ...fields, ...responseHeaders }));
    stream.on("trailers", (trailers) => (fields = { ...fields, ...trailers }));
    stream.resume();
    stream.on("close", () => {
      session.close();
      resolve({ status: String(fields["grpc-status"]), message: decodeURIComponent(String(fields["grpc-message"] ?? "")) });
    });
    stream.end(body);
  });
}

describe("RPC handler: a request that cannot be decoded is InvalidArgument with a fixed message", () => {
  it("Connect application/proto garbage: HTTP 400 invalid_argument, not 500 with the parser's text", async () => {
    const response = await fetch(`${http1Url}${LOGIN_PATH}`, { method: "POST", headers: { "content-type": "application/proto" }, body: TRUNCATED_MESSAGE });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: "invalid_argument", message: DECODE_FAILURE_MESSAGE });
  });

  it.each([
    ["a message that does not parse", envelope(0, TRUNCATED_MESSAGE)],
    ["an unknown flag bit", envelope(0x02, TRUNCATED_MESSAGE)],
    ["every flag bit set, compressed among them", envelope(0xff, TRUNCATED_MESSAGE)],
    ["the compressed flag without grpc-encoding", envelope(0x01, Uint8Array.of(1, 2, 3))],
  ])("gRPC frame with %s: grpc-status 3 (InvalidArgument), not 13", async (_case, body) => {
    expect(await grpcCall(LOGIN_PATH, body)).toEqual({ status: String(Code.InvalidArgument), message: DECODE_FAILURE_MESSAGE });
  });

  it("gRPC-Web garbage: the trailer frame says grpc-status 3", async () => {
    const response = await fetch(`${http1Url}${LOGIN_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/grpc-web+proto" },
      body: envelope(0, TRUNCATED_MESSAGE),
    });
    const text = Buffer.from(await response.arrayBuffer())
      .subarray(5)
      .toString("utf8");
    expect(response.status).toBe(200);
    expect(text).toContain(`grpc-status: ${Code.InvalidArgument}\r\n`);
    expect(text).toContain(`grpc-message: ${encodeURIComponent(DECODE_FAILURE_MESSAGE)}`);
  });

  it("a well-formed request still reaches the method", async () => {
    expect(await grpcCall("/gatehouse.v1.AuthService/Logout", envelope(0, new Uint8Array(0)))).toEqual({ status: "0", message: "" });
  });
});

describe("RPC handler: genuine failures", () => {
  it("a server bug stays Internal, with a generic message, and is reported", async () => {
    unexpected.length = 0;
    const response = await fetch(`${http1Url}${LOGIN_PATH}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ code: "internal", message: "internal error" });
    expect(unexpected).toHaveLength(1);
    expect(unexpected[0]).toMatchObject({ method: "gatehouse.v1.AuthService/Login" });
    expect(await grpcCall(LOGIN_PATH, envelope(0, new Uint8Array(0)))).toEqual({ status: String(Code.Internal), message: "internal error" });
  });

  it("HTTP/1.0 with no Host header is a 400, and the server keeps serving", async () => {
    const socket = connect((http1.address() as AddressInfo).port, "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk));
    socket.write(`POST ${LOGIN_PATH} HTTP/1.0\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}`);
    await new Promise((resolve) => socket.once("close", resolve));
    expect(received).toMatch(/^HTTP\/1\.1 400 [\s\S]*"invalid_argument"/);
    expect(
      (await fetch(`${http1Url}/gatehouse.v1.AuthService/Logout`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status,
    ).toBe(200);
  });
});
