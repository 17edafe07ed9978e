import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createContextValues, type ConnectRouter } from "@connectrpc/connect";
import { AdminService } from "@gatehouse/contract/gen/gatehouse/v1/admin_pb";
import { AuthService } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
import { GatehouseError, type Principal } from "@gatehouse/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBodyBudget } from "../src/body-budget.ts";
import { MAX_POLICY_BODY_BYTES, SMALL_BODY_BYTES } from "../src/body-limits.ts";
import { authInterceptor, edgeRefusalInterceptor, errorInterceptor } from "../src/interceptors.ts";
import { createRpcHandler } from "../src/rpc-handler.ts";

const LOGIN_PATH = "/gatehouse.v1.AuthService/Login";
const LOGOUT_PATH = "/gatehouse.v1.AuthService/Logout";
const UPDATE_POLICY_PATH = "/gatehouse.v1.AdminService/UpdateOrgBrowserPolicy";
/** Two small bodies fit, a third does not. */
const BUDGET_BYTES = 2 * SMALL_BODY_BYTES + 1024;

const handled: string[] = [];
const routes = (router: ConnectRouter) => {
  router.service(AuthService, {
    login: (req) => {
      handled.push(`login ${req.email}`);
      return {};
    },
    logout: () => {
      handled.push("logout");
      return {};
    },
  });
  router.service(AdminService, {
    updateOrgBrowserPolicy: (req) => {
      handled.push(`policy ${req.orgId}`);
      return {};
    },
  });
};

/** Each token check waits here until the test settles it (a principal, or Unauthenticated). */
const tokenChecks: { settle(valid: boolean): void }[] = [];
let holdTokenChecks = false;
const PRINCIPAL: Principal = { userId: "user-1", orgId: "org-1", sessionId: "session-1", deviceId: "device-1", amr: ["pwd"], aal: 1, mfaAt: null };
/** The token of a caller whose large bodies are admitted or refused by `admitted` (the core's decision). */
const ADMIN_TOKEN = "admin-token";
let admitted = true;
const gatehouse = {
  authenticate: (token: string) =>
    token === ADMIN_TOKEN
      ? Promise.resolve(PRINCIPAL)
      : holdTokenChecks
        ? new Promise<Principal>((resolve, reject) =>
            tokenChecks.push({ settle: (valid) => (valid ? resolve(PRINCIPAL) : reject(new GatehouseError("unauthenticated"))) }),
          )
        : Promise.reject(new GatehouseError("unauthenticated")),
};
const reported: { unexpected: unknown[]; clientGone: string[] } = { unexpected: [], clientGone: [] };
const handler = createRpcHandler({
  routes,
  interceptors: [errorInterceptor(() => {}), edgeRefusalInterceptor(), authInterceptor(gatehouse)],
  contextValues: () => createContextValues(),
  authenticate: gatehouse.authenticate,
  admitLargeBody: () =>
    admitted ? Promise.resolve() : Promise.reject(new GatehouseError("rate_limited", "too many requests; retry in 42 s", { retryAfterSeconds: 42 })),
  bodyBudget: createBodyBudget(BUDGET_BYTES),
  fallback: (_req, res) => {
    res.writeHead(404, {});
    res.end("");
  },
  onUnexpected: (error) => reported.unexpected.push(error),
  onClientGone: (method) => reported.clientGone.push(method),
});

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface Call {
  /** Sends (the rest of) the body and ends the request. */
  finish(body: string): void;
  readonly answer: Promise<{ status: number; body: string; retryAfter: string | undefined }>;
}

/** A Connect JSON call whose headers go out at once, its body only when `finish` is called. */
function call(path: string, headers: Record<string, string>): Call {
  const req = request(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, agent: false });
  const answer = new Promise<{ status: number; body: string; retryAfter: string | undefined }>((resolve, reject) => {
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, retryAfter: res.headers["retry-after"] }));
    });
    req.on("error", reject);
  });
  req.flushHeaders();
  return { finish: (body) => req.end(body), answer };
}

/** A Login body of exactly `size` bytes. */
const loginBody = (email: string, size: number) => {
  const empty = JSON.stringify({ email, password: "", deviceFingerprint: "" });
  return JSON.stringify({ email, password: "", deviceFingerprint: "x".repeat(size - empty.length) });
};

describe("request bodies at the RPC handler", () => {
  it("refuses a body at once when the process's budget of bodies in flight is spent, and takes bodies again once it is not", async () => {
    const size = SMALL_BODY_BYTES - 16;
    const held = [call(LOGIN_PATH, { "content-length": String(size) }), call(LOGIN_PATH, { "content-length": String(size) })];
    // The two bodies above hold their reservations while they are awaited: a third is refused without being read.
    const third = await call(LOGIN_PATH, { "content-length": String(size) }).answer;
    expect(third.status).toBe(429);
    expect(JSON.parse(third.body)).toMatchObject({ code: "resource_exhausted", message: "the server is reading too many requests; retry shortly" });
    held.forEach((each, i) => each.finish(loginBody(`held${i}@example.com`, size)));
    expect((await Promise.all(held.map((each) => each.answer))).map(({ status }) => status)).toEqual([200, 200]);
    const after = call(LOGIN_PATH, { "content-length": String(size) });
    after.finish(loginBody("after@example.com", size));
    expect((await after.answer).status).toBe(200);
    expect(handled.filter((line) => line.startsWith("login"))).toEqual(["login held0@example.com", "login held1@example.com", "login after@example.com"]);
  });

  it("cuts a body that declares no length once it passes its method's cap", async () => {
    const chunked = call(LOGIN_PATH, { "transfer-encoding": "chunked" });
    chunked.finish(loginBody("big@example.com", SMALL_BODY_BYTES + 1024));
    const answer = await chunked.answer;
    expect(answer.status).toBe(429);
    expect(JSON.parse(answer.body)).toEqual({ code: "resource_exhausted", message: `the request body must be at most ${SMALL_BODY_BYTES} bytes` });
  });

  it("answers a bearer method Unauthenticated before its body is read, and its handler never runs", async () => {
    const before = handled.length;
    const logout = call(LOGOUT_PATH, { "content-length": "100" });
    const answer = await logout.answer;
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ code: "unauthenticated" });
    expect(handled.slice(before)).toEqual([]);
  });

  it("refuses a large-body method's caller the core refuses from its headers alone, with its Retry-After, and reads an admitted caller's body", async () => {
    const before = handled.length;
    admitted = false;
    try {
      // Declared at the cap and never sent: only an answer decided before the body can arrive.
      const refused = call(UPDATE_POLICY_PATH, { "content-length": String(MAX_POLICY_BODY_BYTES), authorization: `Bearer ${ADMIN_TOKEN}` });
      const answer = await refused.answer;
      expect(answer.status).toBe(429);
      expect(answer.retryAfter).toBe("42");
      expect(JSON.parse(answer.body)).toMatchObject({ code: "resource_exhausted", message: "too many requests; retry in 42 s" });
    } finally {
      admitted = true;
    }
    const body = JSON.stringify({ orgId: "org-1" });
    const accepted = call(UPDATE_POLICY_PATH, { "content-length": String(Buffer.byteLength(body)), authorization: `Bearer ${ADMIN_TOKEN}` });
    accepted.finish(body);
    expect((await accepted.answer).status).toBe(200);
    expect(handled.slice(before)).toEqual(["policy org-1"]);
  });

  it("gives back the budget of a client that leaves while its token is being resolved, and reports it as gone, not as an error", async () => {
    holdTokenChecks = true;
    try {
      // A bearer method's body may be as large as the cap: its reservation would be most of the budget.
      const req = request(`${url}${LOGOUT_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(SMALL_BODY_BYTES) },
        agent: false,
      });
      req.on("error", () => {});
      req.flushHeaders();
      await expect.poll(() => tokenChecks.length).toBe(1);
      const closed = new Promise((resolve) => req.once("close", resolve));
      req.destroy();
      await closed;
      await expect.poll(connectionsOpen).toBe(0);
      tokenChecks.shift()!.settle(true);
      await expect.poll(() => reported.clientGone).toEqual(["gatehouse.v1.AuthService/Logout"]);
      expect(reported.unexpected).toEqual([]);
    } finally {
      holdTokenChecks = false;
    }
    // Two bodies that fill the budget between them are both taken (a third is not): nothing of the one that left is still held.
    const size = SMALL_BODY_BYTES - 16;
    const both = [call(LOGIN_PATH, { "content-length": String(size) }), call(LOGIN_PATH, { "content-length": String(size) })];
    expect((await call(LOGIN_PATH, { "content-length": String(size) }).answer).status).toBe(429);
    both.forEach((each, i) => each.finish(loginBody(`both${i}@example.com`, size)));
    expect((await Promise.all(both.map((each) => each.answer))).map(({ status }) => status)).toEqual([200, 200]);
  });
});

function connectionsOpen(): Promise<number> {
  return new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}
