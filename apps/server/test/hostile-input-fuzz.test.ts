/**
 * Property-based fuzzing of every RPC (over Connect JSON, Connect binary, gRPC through connect-node's
 * client and as raw frames, and gRPC-Web) and every JSON route of a real `gatehouse serve`, on
 * SQLite and on PostgreSQL: whatever a client sends, the answer is never a 5xx, never Internal or
 * Unknown, the process never dies, and /healthz still answers. A fixed seed keeps runs repeatable;
 * set FUZZ_SEED to explore, and a failure prints the seed and counterexample to replay.
 */
import { randomBytes } from "node:crypto";
import { connect as connectHttp2, type ClientHttp2Session } from "node:http2";
import { create, toBinary, toJsonString, type DescMessage, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { AdminService, AuthService, BrowserService, DevService, MAX_JSON_BODY_BYTES } from "@gatehouse/transport-connect";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CONNECTION_LIMITS } from "../src/connection-limits.ts";
import { clientsFor } from "./support/clients.ts";
import { onPostgres, PG_URL, requirePostgresInCi } from "./support/postgres.ts";
import { garbageBytes, hostileJsonObject, hostileString, messageInit, wrongType } from "./support/hostile-inputs.ts";
import { DEV_ENV, runCli, seedOrgAndMember, startServerProcess, tempSqliteDatabase, type ServerProcess } from "./support/server-process.ts";

/** fetch's failure when the peer closed the socket under a write or a read. */
function closedByServer(error: unknown): boolean {
  const code = error instanceof TypeError ? (error.cause as { code?: unknown } | undefined)?.code : undefined;
  return code === "EPIPE" || code === "ECONNRESET" || code === "UND_ERR_SOCKET";
}

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const PASSWORD = "correct horse battery";
const EMAIL = "ada@example.com";
const FORBIDDEN_GRPC_STATUSES = [String(Code.Internal), String(Code.Unknown)];

const METHODS: { service: DescService; method: DescMethod }[] = [AuthService, BrowserService, AdminService, DevService].flatMap((service) =>
  service.methods.map((method) => ({ service, method })),
);

const pgUnreachable = await requirePostgresInCi("the hostile-input fuzz on PostgreSQL");

interface Database {
  readonly url: string;
  dispose(): Promise<void>;
}

const DATABASES: { name: string; open: () => Promise<Database> }[] = [
  {
    name: "SQLite",
    open: async () => {
      const db = tempSqliteDatabase();
      return { url: db.databaseUrl, dispose: async () => db.dispose() };
    },
  },
  ...(pgUnreachable === null
    ? [
        {
          name: "PostgreSQL",
          open: async () => {
            // A database of its own, dropped with everything in it afterwards.
            const name = `gh_fuzz_${randomBytes(6).toString("hex")}`;
            await onPostgres((client) => client.query(`create database ${name}`));
            const url = Object.assign(new URL(PG_URL), { pathname: `/${name}` }).toString();
            return { url, dispose: async () => void (await onPostgres((client) => client.query(`drop database if exists ${name} with (force)`))) };
          },
        },
      ]
    : []),
];

function envelope(flags: number, data: Uint8Array): Uint8Array {
  const framed = new Uint8Array(5 + data.length);
  framed[0] = flags;
  new DataView(framed.buffer).setUint32(1, data.length);
  framed.set(data, 5);
  return framed;
}

/** Well-typed message bytes when they encode, else garbage: a hostile enum number or the like may not. */
function binaryOf(desc: DescMessage, init: Record<string, unknown>): Uint8Array {
  try {
    return toBinary(desc, create(desc, init));
  } catch {
    return Uint8Array.of(0xff);
  }
}

function jsonOf(desc: DescMessage, init: Record<string, unknown>): string {
  try {
    return toJsonString(desc, create(desc, init));
  } catch {
    return "{";
  }
}

describe.each(DATABASES)("hostile input on $name: never a 5xx, never Internal or Unknown, never a crash", ({ open }) => {
  let database: Database;
  let server: ServerProcess;
  let session: ClientHttp2Session | undefined;
  let known: string[];
  let authHeaders: Record<string, string>[];

  beforeAll(async () => {
    database = await open();
    const env = { ...DEV_ENV, DATABASE_URL: database.url };
    const { orgId, userId } = await seedOrgAndMember(env, EMAIL, PASSWORD, "admin");
    expect((await runCli(["org", "settings", orgId, "--json", '{"require_mfa_new_device": false, "require_mfa_untrusted_device": false}'], env)).status).toBe(
      0,
    );
    server = await startServerProcess(env);
    const outcome = await clientsFor(server.url).auth.login({ email: EMAIL, password: PASSWORD, orgId });
    if (outcome.result.case !== "tokens") throw new Error(`expected tokens, got ${outcome.result.case}`);
    const { accessToken, refreshToken } = outcome.result.value;
    // Real ids and tokens among the strings, so inputs get past authentication and lookups into deeper code.
    known = [orgId, userId, EMAIL, PASSWORD, accessToken, refreshToken, "+15551234567", "https://docs.example.com/"];
    authHeaders = [{}, { authorization: `Bearer ${accessToken}` }, { authorization: "Bearer gh_at_forged" }, { authorization: "Basic YTpi" }];
  }, 120_000);

  // DROP DATABASE waits for a checkpoint, which a busy shared server can take long to finish.
  afterAll(async () => {
    session?.destroy();
    await server?.stop();
    await database?.dispose();
  }, 180_000);

  const strings = () => fc.oneof({ arbitrary: hostileString, weight: 3 }, { arbitrary: fc.constantFrom(...known), weight: 2 });
  const auth = () => fc.constantFrom(...authHeaders);
  const rpc = () => fc.constantFrom(...METHODS);
  const url = (service: DescService, method: DescMethod) => `${server.url}/${service.typeName}/${method.name}`;

  async function expectNo5xx(response: Response, what: string): Promise<void> {
    const body = await response.text();
    expect(response.status, `${what} → ${response.status} ${body.slice(0, 300)}`).toBeLessThan(500);
  }

  /** One h2c session for many calls; the server closes it once idle for its keep-alive timeout, so a closed one is replaced. */
  function openSession(): ClientHttp2Session {
    if (session === undefined || session.closed || session.destroyed) {
      session = connectHttp2(server.url);
      session.on("error", () => {});
    }
    return session;
  }

  function rawGrpc(path: string, headers: Record<string, string>, body: Uint8Array): Promise<{ status: string; fields: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const stream = openSession().request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers", ...headers });
      let fields: Record<string, unknown> = {};
      stream.on("response", (responseHeaders) => (fields = { ...fields, ...responseHeaders }));
      stream.on("trailers", (trailers) => (fields = { ...fields, ...trailers }));
      stream.on("error", reject);
      stream.resume();
      stream.on("close", () => resolve({ status: String(fields["grpc-status"]), fields }));
      stream.end(body);
    });
  }

  const check = <T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>) =>
    fc.assert(fc.asyncProperty(arbitrary, predicate), { seed: SEED, numRuns: RUNS });

  /** An RPC with a message for it: well-typed and hostile (or unencodable), as a `create()` init. */
  const rpcWithMessage = () =>
    rpc().chain((target) => fc.record({ target: fc.constant(target), init: messageInit(target.method.input, strings()), headers: auth() }));

  it("Connect JSON: well-typed hostile messages, fields of the wrong type, garbage text", async () => {
    const bodies = rpc().chain((target) =>
      fc.record({
        target: fc.constant(target),
        headers: auth(),
        body: fc.oneof(
          messageInit(target.method.input, strings()).map((init) => jsonOf(target.method.input, init)),
          hostileJsonObject(target.method.input, strings()).map((object) => JSON.stringify(object)),
          fc.string({ unit: "binary", maxLength: 60 }),
        ),
      }),
    );
    await check(bodies, async ({ target, headers, body }) => {
      const response = await fetch(url(target.service, target.method), { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
      await expectNo5xx(response, `Connect JSON ${target.method.name} ${body.slice(0, 200)}`);
    });
  });

  it("Connect binary: well-typed hostile messages and garbage bytes", async () => {
    const bodies = rpc().chain((target) =>
      fc.record({
        target: fc.constant(target),
        headers: auth(),
        body: fc.oneof(
          messageInit(target.method.input, strings()).map((init) => binaryOf(target.method.input, init)),
          garbageBytes,
        ),
      }),
    );
    await check(bodies, async ({ target, headers, body }) => {
      const response = await fetch(url(target.service, target.method), { method: "POST", headers: { "content-type": "application/proto", ...headers }, body });
      await expectNo5xx(response, `Connect binary ${target.method.name} ${Buffer.from(body).toString("hex").slice(0, 200)}`);
    });
  });

  it("gRPC through connect-node's client: well-typed hostile messages", async () => {
    const transport = createGrpcTransport({ baseUrl: server.url });
    await check(rpcWithMessage(), async ({ target, init, headers }) => {
      const client = createClient(target.service, transport) as unknown as Record<string, (message: unknown, options: object) => Promise<unknown>>;
      let message: unknown;
      try {
        message = create(target.method.input, init);
        toBinary(target.method.input, message as never);
      } catch {
        return; // not encodable: the raw-frame property sends such bytes
      }
      try {
        await client[target.method.localName]!(message, { headers });
      } catch (error) {
        const code = ConnectError.from(error).code;
        expect([Code.Internal, Code.Unknown], `gRPC ${target.method.name}: ${String(error)}`).not.toContain(code);
      }
    });
  });

  it("gRPC raw frames: bad flags, compression without grpc-encoding, garbage, truncated envelopes", async () => {
    const frames = rpc().chain((target) =>
      fc.record({
        target: fc.constant(target),
        headers: auth(),
        body: fc.oneof(
          fc
            .tuple(
              fc.constantFrom(0, 1, 2, 0x7f, 0x80, 0xff),
              fc.oneof(
                messageInit(target.method.input, strings()).map((init) => binaryOf(target.method.input, init)),
                garbageBytes,
              ),
            )
            .map(([flags, data]) => envelope(flags, data)),
          garbageBytes,
          fc.tuple(garbageBytes, garbageBytes).map(([first, second]) => Buffer.concat([envelope(0, first), envelope(0, second)])),
        ),
      }),
    );
    await check(frames, async ({ target, headers, body }) => {
      const { status, fields } = await rawGrpc(`/${target.service.typeName}/${target.method.name}`, headers, body);
      const what = `gRPC frame ${target.method.name} ${Buffer.from(body).toString("hex").slice(0, 200)} → ${JSON.stringify(fields)}`;
      expect(status, what).toMatch(/^\d+$/);
      expect(FORBIDDEN_GRPC_STATUSES, what).not.toContain(status);
      expect(Number(fields[":status"])).toBeLessThan(500);
    });
  });

  it("gRPC-Web: well-typed hostile messages and garbage frames", async () => {
    const frames = rpc().chain((target) =>
      fc.record({
        target: fc.constant(target),
        headers: auth(),
        body: fc.oneof(
          messageInit(target.method.input, strings()).map((init) => envelope(0, binaryOf(target.method.input, init))),
          fc.tuple(fc.constantFrom(0, 1, 0x80, 0xff), garbageBytes).map(([flags, data]) => envelope(flags, data)),
          garbageBytes,
        ),
      }),
    );
    await check(frames, async ({ target, headers, body }) => {
      const response = await fetch(url(target.service, target.method), {
        method: "POST",
        headers: { "content-type": "application/grpc-web+proto", ...headers },
        body,
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      const what = `gRPC-Web ${target.method.name} ${Buffer.from(body).toString("hex").slice(0, 200)} → ${response.status} ${bytes.toString("latin1").slice(0, 300)}`;
      expect(response.status, what).toBeLessThan(500);
      const status = /grpc-status: ?(\d+)/.exec(bytes.toString("latin1"))?.[1] ?? response.headers.get("grpc-status");
      expect(status, what).toMatch(/^\d+$/);
      expect(FORBIDDEN_GRPC_STATUSES, what).not.toContain(status);
    });
  });

  it("JSON routes: /api/browser/policy, /api/browser/check-url and /api/dev/mfa/otp", async () => {
    const query = strings().map((value) => encodeURIComponent(value));
    const requests = fc.oneof(
      fc.record({
        path: query.map((value) => `/api/browser/policy?org_id=${value}`),
        method: fc.constantFrom("GET", "POST"),
        headers: auth(),
        body: fc.constant(undefined),
      }),
      fc.record({
        path: query.map((value) => `/api/dev/mfa/otp?challenge_id=${value}`),
        method: fc.constantFrom("GET", "DELETE"),
        headers: auth(),
        body: fc.constant(undefined),
      }),
      fc.record({
        path: fc.constant("/api/browser/check-url"),
        method: fc.constantFrom("POST", "GET"),
        headers: auth(),
        body: fc.oneof(
          fc
            .record({ org_id: fc.oneof(strings(), wrongType), url: fc.oneof(strings(), wrongType) }, { requiredKeys: [] })
            .map((object) => JSON.stringify(object)),
          fc.string({ unit: "binary", maxLength: 60 }),
        ),
      }),
    );
    await check(requests, async ({ path, method, headers, body }) => {
      const hasBody = body !== undefined && method !== "GET";
      // Past a limit the server answers (431, 413) and closes while the client may still be writing its
      // megabyte: the client then sees the socket closed (EPIPE, ECONNRESET) instead of the status, a race
      // that CI once lost. For such a request a closed connection is the refusal; any other failure is not.
      const overLimit = Buffer.byteLength(path) > DEFAULT_CONNECTION_LIMITS.maxHeaderBytes || (hasBody && Buffer.byteLength(body) > MAX_JSON_BODY_BYTES);
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { ...(hasBody ? { "content-type": "application/json" } : {}), ...headers },
        body: hasBody ? body : undefined,
      }).catch((error: unknown) => {
        if (overLimit && closedByServer(error)) return "closed by the server" as const;
        throw error;
      });
      if (response !== "closed by the server") await expectNo5xx(response, `${method} ${path.slice(0, 200)} ${String(body).slice(0, 200)}`);
    });
  });

  it("the server is still up and answers /healthz", async () => {
    expect(server.process.exitCode).toBeNull();
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
