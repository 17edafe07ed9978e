/**
 * The load generator, always in its own process so it never shares an event loop with the server or the bench:
 * autocannon (keep-alive connections) for independent requests; a raw-socket loop of one prebuilt request where the
 * load's own CPU would be charged to the server (it shares the server's cores); a sequential loop for the MFA flow, whose
 * requests depend on each other (one MFA flow over Connect's JSON protocol, each step timed: Login → GetOTP, the dev
 * server's stand-in for the phone → VerifyMFA for an SMS user; Login → VerifyMFA with the app's code for a TOTP user);
 * and one legitimate client logging in from its own loopback address. The experiments import its flow.
 *
 * Usage: node --conditions=@gatehouse/source scripts/bench/load-runner.ts < job.json   → prints one JSON line
 */
import autocannon from "autocannon";
import { Agent, request } from "node:http";
import { text } from "node:stream/consumers";
import { connect } from "node:net";
import { totpCodeAt } from "@gatehouse/core";
import { quantile, sleep } from "./stats.ts";

export interface HttpRequestSpec {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

export interface AutocannonJob {
  readonly kind: "autocannon";
  readonly url: string;
  readonly connections: number;
  /** Seconds; or `amount` requests in total. */
  readonly duration?: number;
  readonly amount?: number;
  /** Cycled through by every connection. */
  readonly requests: readonly HttpRequestSpec[];
}

/** `amount` requests, `connections` at a time, each connection a raw keep-alive socket sending `request` again on every answer. */
export interface SocketLoopJob {
  readonly kind: "socket-loop";
  readonly url: string;
  readonly connections: number;
  readonly amount: number;
  readonly request: HttpRequestSpec;
}

export interface FlowJob {
  readonly kind: "mfa-flow";
  readonly url: string;
  readonly orgId: string;
  readonly users: readonly { email: string; password: string; totpSecret?: string }[];
  /** Seconds, or a fixed number of flows. */
  readonly duration?: number;
  readonly flows?: number;
  /** The per-phone send limit allows 5 SMS flows per user in 15 minutes; a TOTP user's next code is good for one. */
  readonly flowsPerUser: number;
  readonly fingerprintPrefix: string;
}

/** One legitimate client: sequential Logins on one keep-alive connection from `localAddress`, another address than autocannon's. */
export interface LoginProbeJob {
  readonly kind: "login-probe";
  readonly url: string;
  /** The Login request body (JSON). */
  readonly body: string;
  readonly localAddress: string;
  /** Wait this long before the first login (lets a flood started alongside reach its steady state). */
  readonly delayS: number;
  /** Seconds of logins, at least `minLogins` of them. */
  readonly durationS: number;
  readonly minLogins: number;
}

export type LoadResult = Awaited<ReturnType<typeof runAutocannon>>;
export type FlowResult = Awaited<ReturnType<typeof runFlow>>;
export type ProbeResult = Awaited<ReturnType<typeof runLoginProbe>>;

export async function runAutocannon(job: AutocannonJob) {
  const latencies: number[] = [];
  let [firstAt, lastAt] = [0, 0];
  const instance = autocannon({
    url: job.url,
    connections: job.connections,
    pipelining: 1,
    timeout: 30,
    ...(job.amount !== undefined ? { amount: job.amount } : { duration: job.duration ?? 10 }),
    requests: job.requests.map((spec) => ({ ...spec })),
  });
  instance.on("start", () => (firstAt = performance.now()));
  instance.on("response", (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
    lastAt = performance.now();
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
  });
  const result = await instance;
  const elapsedS = (lastAt - firstAt) / 1000;
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stats]) => [code, stats.count]));
  const count = latencies.length;
  return {
    count,
    non2xx: result.non2xx,
    errors: result.errors,
    statusCodes,
    rps: elapsedS > 0 ? count / elapsedS : 0,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
  };
}

/**
 * Less than half of autocannon's CPU per request in a process this short-lived (docs/decisions/login-overhead.md): one
 * prebuilt request, and an answer's end found by its Content-Length (Gatehouse sends one on every unary answer).
 */
export async function runSocketLoop(job: SocketLoopJob): Promise<LoadResult> {
  const { hostname, port } = new URL(job.url);
  const { method, path, headers, body = "" } = job.request;
  const head = Object.entries({ host: `${hostname}:${port}`, ...headers, "content-length": String(Buffer.byteLength(body)) });
  const request = Buffer.from(`${method} ${path} HTTP/1.1\r\n${head.map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n${body}`);
  const [latencies, statusCodes] = [[] as number[], {} as Record<string, number>];
  let started = 0;
  const connection = () =>
    new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      let [buffered, sentAt]: [Buffer, number] = [Buffer.alloc(0), 0];
      const next = () => (started++ < job.amount ? ((sentAt = performance.now()), socket.write(request)) : (socket.end(), resolve()));
      socket.once("connect", next).once("error", reject);
      socket.once("close", () => reject(new Error("the server closed a connection before its last answer")));
      socket.on("data", (chunk: Buffer) => {
        buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) return;
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(buffered.toString("latin1", 0, end))?.[1]);
        if (!Number.isSafeInteger(length)) return reject(new Error("an answer without a content-length"));
        if (buffered.length < end + 4 + length) return;
        const status = buffered.toString("latin1", 9, 12);
        statusCodes[status] = (statusCodes[status] ?? 0) + 1;
        if (status.startsWith("2")) latencies.push(performance.now() - sentAt);
        buffered = buffered.subarray(end + 4 + length);
        next();
      });
    });
  const start = performance.now();
  await Promise.all(Array.from({ length: job.connections }, connection));
  const [count, elapsedS] = [latencies.length, (performance.now() - start) / 1000];
  return {
    count,
    non2xx: job.amount - count,
    errors: 0,
    statusCodes,
    rps: count / elapsedS,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
  };
}

async function runLoginProbe(job: LoginProbeJob) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = new URL(job.url);
  await sleep(job.delayS * 1000);
  const times: number[] = [];
  let failures = 0;
  const deadline = performance.now() + job.durationS * 1000;
  while (times.length < job.minLogins || performance.now() < deadline) {
    const t0 = performance.now();
    const { status } = await httpCall(agent, base, "/gatehouse.v1.AuthService/Login", job.body, job.localAddress);
    times.push(performance.now() - t0);
    if (status !== 200) failures++;
  }
  agent.destroy();
  // failures: logins answered with anything but HTTP 200 (a refused legitimate login counts here).
  return { logins: times.length, failures, p50Ms: quantile(times, 0.5), p99Ms: quantile(times, 0.99), maxMs: quantile(times, 1) };
}

async function runFlow(job: FlowJob) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = new URL(job.url);
  const floor: number[] = [];
  for (let i = 0; i < 100; i++) {
    const t0 = performance.now();
    if ((await httpCall(agent, base, "/healthz")).status !== 200) throw new Error("GET /healthz failed");
    floor.push(performance.now() - t0);
  }
  const steps: Awaited<ReturnType<typeof mfaFlowOnce>>[] = [];
  const deadline = job.duration !== undefined ? performance.now() + job.duration * 1000 : Infinity;
  while (steps.length < (job.flows ?? Infinity) && performance.now() < deadline) {
    const user = job.users[Math.floor(steps.length / job.flowsPerUser)];
    if (user === undefined) break; // every user has spent its flows
    steps.push(await mfaFlowOnce(agent, base, user, job.orgId, `${job.fingerprintPrefix}-${steps.length}`));
  }
  agent.destroy();
  const p50 = (pick: (step: (typeof steps)[number]) => number) => quantile(steps.map(pick), 0.5);
  // signInP50Ms: Login + VerifyMFA without fetching the code (GetOTP, the dev server's stand-in for the phone);
  // floorP50Ms: sequential GET /healthz on the same connection before the flows, one request's loopback floor.
  return {
    flows: steps.length,
    flowP50Ms: p50((s) => s.loginMs + s.otpMs + s.verifyMs),
    loginP50Ms: p50((s) => s.loginMs),
    otpP50Ms: p50((s) => s.otpMs),
    verifyP50Ms: p50((s) => s.verifyMs),
    signInP50Ms: p50((s) => s.loginMs + s.verifyMs),
    floorP50Ms: quantile(floor, 0.5),
  };
}

/** Flows per SMS user: a flow sends one OTP, and the per-phone send limit allows 5 per 15 minutes. */
export const FLOWS_PER_USER = 5;

/** Logs `user` in to `orgId` from a new device `fingerprint` (MFA required) and verifies the SMS or app code. */
export async function mfaFlowOnce(agent: Agent, base: URL, user: FlowJob["users"][number], orgId: string, fingerprint: string) {
  const t0 = performance.now();
  const login = await connectCall(agent, base, "AuthService/Login", { email: user.email, password: user.password, orgId, deviceFingerprint: fingerprint });
  const t1 = performance.now();
  const challengeId = (login.mfaRequired as { challengeId?: string } | undefined)?.challengeId;
  if (challengeId === undefined) throw new Error(`expected mfaRequired, got ${JSON.stringify(login)}`);
  // The next time step's code: the enrolment used up the current one (a step is accepted once, ±1 step of drift).
  // No factor field for SMS (unspecified is SMS), so this flow also runs against checkouts from before factors.
  const [otp, factor] =
    user.totpSecret === undefined
      ? [((await connectCall(agent, base, "DevService/GetOTP", { challengeId })) as { otp: string }).otp, {}]
      : [totpCodeAt(user.totpSecret, Date.now() + 30_000), { factor: "MFA_FACTOR_TOTP" }];
  const t2 = performance.now();
  const tokens = await connectCall(agent, base, "AuthService/VerifyMFA", { challengeId, otp, ...factor });
  const t3 = performance.now();
  if (typeof tokens.accessToken !== "string") throw new Error("VerifyMFA returned no access token");
  return { loginMs: t1 - t0, otpMs: t2 - t1, verifyMs: t3 - t2 };
}

/** A request on `agent`'s keep-alive connection; resolves with the status and the body's text. */
export function httpCall(agent: Agent, base: URL, path: string, body?: string, localAddress?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
    const options = { agent, host: base.hostname, port: base.port, method: body === undefined ? "GET" : "POST", path, headers, localAddress };
    const req = request(options, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text })).on("error", reject);
    });
    req.on("error", reject).end(body);
  });
}

async function connectCall(agent: Agent, base: URL, method: string, body: unknown): Promise<Record<string, unknown>> {
  const { status, text } = await httpCall(agent, base, `/gatehouse.v1.${method}`, JSON.stringify(body));
  if (status !== 200) throw new Error(`${method}: HTTP ${status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

if (import.meta.main) {
  const job = JSON.parse(await text(process.stdin)) as AutocannonJob | SocketLoopJob | FlowJob | LoginProbeJob;
  const result =
    job.kind === "autocannon"
      ? await runAutocannon(job)
      : job.kind === "socket-loop"
        ? await runSocketLoop(job)
        : job.kind === "mfa-flow"
          ? await runFlow(job)
          : await runLoginProbe(job);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
