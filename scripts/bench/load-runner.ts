/**
 * The load generator, always in its own process so it never shares an event loop with the
 * server or the bench: autocannon (keep-alive connections) for independent requests, and a
 * custom sequential loop for the MFA flow, whose requests depend on each other.
 *
 * Usage: node scripts/bench/load-runner.ts <job.json>   → prints one JSON line (LoadResult | FlowResult)
 */
import autocannon from "autocannon";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { mfaFlowOnce } from "./mfa-flow-once.ts";
import { quantileSorted, Samples } from "./stats.ts";

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
  readonly requests?: readonly HttpRequestSpec[];
  /** One request per body, each used once, all to `bodiesRequest` (VerifyMFA on fresh challenges). */
  readonly bodies?: readonly string[];
  readonly bodiesRequest?: HttpRequestSpec;
}

export interface FlowJob {
  readonly kind: "mfa-flow";
  readonly url: string;
  readonly orgId: string;
  readonly users: readonly { email: string; password: string }[];
  /** Seconds, or a fixed number of flows. */
  readonly duration?: number;
  readonly flows?: number;
  /** The per-phone send limit: 5 OTPs per 15 minutes. */
  readonly flowsPerUser: number;
  readonly fingerprintPrefix: string;
}

/**
 * One legitimate client: sequential Connect Logins on one keep-alive connection from its own
 * loopback address (127.0.0.2), so the server sees another client IP than autocannon's 127.0.0.1.
 */
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

export interface ProbeResult {
  readonly logins: number;
  /** Logins answered with anything but HTTP 200 (a refused legitimate login counts here). */
  readonly failures: number;
  readonly statusCodes: Record<string, number>;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface LoadResult {
  readonly count: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly statusCodes: Record<string, number>;
  readonly elapsedS: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
}

export interface FlowResult {
  readonly flows: number;
  readonly elapsedS: number;
  readonly flowsPerS: number;
  readonly flowP50Ms: number;
  readonly flowP99Ms: number;
  readonly loginP50Ms: number;
  readonly otpP50Ms: number;
  readonly verifyP50Ms: number;
  /** Sequential GET /healthz on the same connection before the flows: one request's loopback floor. */
  readonly floorP50Ms: number;
  readonly usersUsed: number;
  /** True when the flow stopped early because every user had spent its OTP sends. */
  readonly exhausted: boolean;
}

async function runAutocannon(job: AutocannonJob): Promise<LoadResult> {
  const latencies = new Samples();
  let count = 0;
  let firstAt = 0;
  let lastAt = 0;
  const requests = job.bodies
    ? (() => {
        let next = 0;
        const bodies = job.bodies;
        const spec = job.bodiesRequest!;
        return [
          {
            method: spec.method,
            path: spec.path,
            headers: spec.headers,
            setupRequest: (req: { body?: string }) => ({ ...req, body: bodies[next++ % bodies.length] }),
          },
        ];
      })()
    : job.requests!.map((spec) => ({ method: spec.method, path: spec.path, headers: spec.headers, body: spec.body }));
  const instance = autocannon({
    url: job.url,
    connections: job.connections,
    pipelining: 1,
    timeout: 30,
    ...(job.amount !== undefined ? { amount: job.amount } : { duration: job.duration ?? 10 }),
    requests,
  });
  instance.on("start", () => (firstAt = performance.now()));
  instance.on("response", (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
    lastAt = performance.now();
    if (statusCode >= 200 && statusCode < 300) {
      count++;
      latencies.push(responseTimeMs);
    }
  });
  const result = await instance;
  const sorted = latencies.sorted();
  const elapsedS = (lastAt - firstAt) / 1000;
  let sum = 0;
  for (const value of sorted) sum += value;
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats)) statusCodes[code] = stats.count;
  return {
    count,
    non2xx: result.non2xx,
    errors: result.errors,
    statusCodes,
    elapsedS,
    rps: elapsedS > 0 ? count / elapsedS : 0,
    p50Ms: quantileSorted(sorted, 0.5),
    p99Ms: quantileSorted(sorted, 0.99),
    meanMs: sorted.length > 0 ? sum / sorted.length : Number.NaN,
  };
}

function get(agent: Agent, base: URL, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: base.hostname, port: base.port, method: "GET", path }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`GET ${path}: HTTP ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end();
  });
}

function postStatus(agent: Agent, base: URL, path: string, payload: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        localAddress,
        method: "POST",
        path,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

async function runLoginProbe(job: LoginProbeJob): Promise<ProbeResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = new URL(job.url);
  await new Promise((resolve) => setTimeout(resolve, job.delayS * 1000));
  const times = new Samples();
  const statusCodes: Record<string, number> = {};
  let logins = 0;
  let failures = 0;
  const deadline = performance.now() + job.durationS * 1000;
  while (logins < job.minLogins || performance.now() < deadline) {
    const t0 = performance.now();
    const status = await postStatus(agent, base, "/gatehouse.v1.AuthService/Login", job.body, job.localAddress);
    times.push(performance.now() - t0);
    statusCodes[status] = (statusCodes[status] ?? 0) + 1;
    logins++;
    if (status !== 200) failures++;
  }
  agent.destroy();
  const sorted = times.sorted();
  return { logins, failures, statusCodes, p50Ms: quantileSorted(sorted, 0.5), p99Ms: quantileSorted(sorted, 0.99), maxMs: sorted.at(-1) ?? Number.NaN };
}

/** Login → dev OTP → VerifyMFA, one flow at a time, each on a new device so MFA is required. */
async function runFlow(job: FlowJob): Promise<FlowResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = new URL(job.url);
  const flowTimes = new Samples();
  const loginTimes = new Samples();
  const otpTimes = new Samples();
  const verifyTimes = new Samples();
  const floorTimes = new Samples();
  for (let i = 0; i < 100; i++) {
    const t0 = performance.now();
    await get(agent, base, "/healthz");
    floorTimes.push(performance.now() - t0);
  }
  const start = performance.now();
  const deadline = job.duration !== undefined ? start + job.duration * 1000 : Infinity;
  const target = job.flows ?? Infinity;
  let flows = 0;
  let exhausted = false;
  while (flows < target && performance.now() < deadline) {
    const user = job.users[Math.floor(flows / job.flowsPerUser)];
    if (user === undefined) {
      exhausted = true;
      break;
    }
    const step = await mfaFlowOnce(agent, base, user, job.orgId, `${job.fingerprintPrefix}-${flows}`);
    flows++;
    flowTimes.push(step.loginMs + step.otpMs + step.verifyMs);
    loginTimes.push(step.loginMs);
    otpTimes.push(step.otpMs);
    verifyTimes.push(step.verifyMs);
  }
  const elapsedS = (performance.now() - start) / 1000;
  agent.destroy();
  const flowSorted = flowTimes.sorted();
  return {
    flows,
    elapsedS,
    flowsPerS: flows / elapsedS,
    flowP50Ms: quantileSorted(flowSorted, 0.5),
    flowP99Ms: quantileSorted(flowSorted, 0.99),
    loginP50Ms: quantileSorted(loginTimes.sorted(), 0.5),
    otpP50Ms: quantileSorted(otpTimes.sorted(), 0.5),
    verifyP50Ms: quantileSorted(verifyTimes.sorted(), 0.5),
    floorP50Ms: quantileSorted(floorTimes.sorted(), 0.5),
    usersUsed: Math.ceil(flows / job.flowsPerUser),
    exhausted,
  };
}

const job = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as AutocannonJob | FlowJob | LoginProbeJob;
const result = job.kind === "autocannon" ? await runAutocannon(job) : job.kind === "mfa-flow" ? await runFlow(job) : await runLoginProbe(job);
process.stdout.write(`${JSON.stringify(result)}\n`);
