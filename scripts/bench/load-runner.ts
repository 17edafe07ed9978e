/**
 * The load generator, always in its own process so it never shares an event loop with the server or the bench: a
 * loop per connection for independent requests (every throughput and latency load, the legitimate client beside a
 * flood included), and a sequential loop for the MFA flow, whose requests depend on each other (one MFA flow over
 * Connect's JSON protocol, each step timed: Login → GetOTP, the dev server's stand-in for the phone → VerifyMFA for an
 * SMS user; Login → VerifyMFA with the app's code for a TOTP user). Both speak through one client, `openConnection`.
 * The experiments import them.
 *
 * Usage: node --conditions=@gatehouse/source scripts/bench/load-runner.ts < job.json   → prints one JSON line
 */
import { once } from "node:events";
import { connect } from "node:net";
import { text } from "node:stream/consumers";
import { totpCodeAt } from "@gatehouse/core";
import { quantile } from "./stats.ts";

export interface HttpRequestSpec {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/**
 * `connections` keep-alive connections, each sending the next of `requests` (cycled over the whole load) on every
 * answer: `amount` requests in all, or as many as `duration` seconds take. `localAddress` is the client's own address
 * where a figure tells two clients apart (the flood's 127.0.0.1, the legitimate client's 127.0.0.2).
 */
export type LoadJob = {
  readonly kind: "load";
  readonly url: string;
  readonly connections: number;
  readonly requests: readonly HttpRequestSpec[];
  readonly localAddress?: string;
} & ({ readonly amount: number } | { readonly duration: number });

export interface FlowJob {
  readonly kind: "mfa-flow";
  readonly url: string;
  readonly orgId: string;
  readonly users: readonly { email: string; password: string; totpSecret?: string }[];
  readonly flows: number;
  /** The per-phone send limit allows 5 SMS flows per user in 15 minutes; a TOTP user's next code is good for one. */
  readonly flowsPerUser: number;
  readonly fingerprintPrefix: string;
}

export type LoadResult = Awaited<ReturnType<typeof runSocketLoad>>;
export type FlowResult = Awaited<ReturnType<typeof runFlow>>;

export type Http1Connection = Awaited<ReturnType<typeof openConnection>>;

/** Past this long without a byte of its answer, a request is given up: a stuck server fails its figure instead of hanging the bench. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * A raw keep-alive HTTP/1.1 connection to `url`'s host, one request at a time: cheaper per request than autocannon or
 * a node:http loop in a process this short-lived (docs/login-overhead.md). `localAddress` binds the client's
 * end. A connection that cannot be made is one that has ended: its requests resolve undefined.
 */
export async function openConnection(url: string, localAddress?: string, timeoutMs = REQUEST_TIMEOUT_MS) {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), localAddress, noDelay: true });
  await once(socket, "connect").catch(() => {});
  let buffered: Buffer = Buffer.alloc(0);
  let waiting: PromiseWithResolvers<ReturnType<typeof http1Answer>> | undefined;
  socket.setTimeout(timeoutMs, () => socket.destroy());
  // Every error (a reset, the timeout's) is followed by "close", which settles the request waiting.
  socket.on("error", () => {});
  socket.once("close", () => waiting?.resolve(undefined));
  socket.on("data", (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    try {
      const answer = http1Answer(buffered);
      if (answer === undefined) return;
      buffered = buffered.subarray(answer.end);
      waiting?.resolve(answer);
    } catch (error) {
      waiting?.reject(error);
      socket.destroy();
    }
  });
  return {
    /**
     * Sends `spec` and resolves with its answer, or with undefined when the connection ends first (the server closed
     * or reset it, an answer before said it closes, the timeout); rejects on an answer without a Content-Length.
     */
    request(spec: HttpRequestSpec): Promise<ReturnType<typeof http1Answer>> {
      if (socket.destroyed) return Promise.resolve(undefined);
      waiting = Promise.withResolvers();
      socket.write(requestBytes(`${hostname}:${port}`, spec));
      return waiting.promise;
    },
    close: () => socket.destroy(),
  };
}

function requestBytes(host: string, { method, path, headers, body = "" }: HttpRequestSpec): string {
  const head = Object.entries({ host, ...headers, "content-length": String(Buffer.byteLength(body)) });
  return `${method} ${path} HTTP/1.1\r\n${head.map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n${body}`;
}

const CONTENT_LENGTH = /\r\ncontent-length: *(\d+)/i;
const CONNECTION_CLOSE = /\r\nconnection: *close\r/i;

/**
 * The first whole HTTP/1.1 answer in `bytes` and where it ends, or undefined while it is incomplete. The server states
 * the length of every answer (Connect's, and the JSON routes' by writeJson); one without throws: its end could be
 * found only by decoding its chunks or waiting for the connection's.
 */
function http1Answer(bytes: Buffer) {
  const headEnd = bytes.indexOf("\r\n\r\n");
  if (headEnd < 0) return undefined;
  // Up to the blank line's first CRLF, so that every header line ends in one for the patterns above.
  const head = bytes.toString("latin1", 0, headEnd + 2);
  const length = CONTENT_LENGTH.exec(head)?.[1];
  if (length === undefined) throw new Error(`an answer without a content-length:\n${head}`);
  const end = headEnd + 4 + Number(length);
  if (bytes.length < end) return undefined;
  return { status: Number(head.slice(9, 12)), body: bytes.subarray(headEnd + 4, end), close: CONNECTION_CLOSE.test(head), end };
}

/**
 * A loop per connection, each sending its next request on its last one's answer. A connection that ends before the
 * load does (refused, closed by the server, reset, timed out) counts one error and the other connections carry the
 * load on; an answer whose end cannot be found fails the whole load.
 */
export async function runSocketLoad(job: LoadJob, timeoutMs = REQUEST_TIMEOUT_MS) {
  const started = performance.now();
  const [amount, deadline] = "amount" in job ? [job.amount, Infinity] : [Infinity, started + job.duration * 1000];
  const [latencies, statusCodes] = [[] as number[], {} as Record<number, number>];
  let [sent, non2xx, errors, lastAnswerAt] = [0, 0, 0, started];
  let failure: unknown;
  const loadOver = () => failure !== undefined || sent >= amount || performance.now() >= deadline;
  const drive = async () => {
    const connection = await openConnection(job.url, job.localAddress, timeoutMs);
    try {
      while (!loadOver()) {
        const sentAt = performance.now();
        const answer = await connection.request(job.requests[sent++ % job.requests.length]!);
        if (answer !== undefined) {
          lastAnswerAt = performance.now();
          statusCodes[answer.status] = (statusCodes[answer.status] ?? 0) + 1;
          if (answer.status >= 200 && answer.status < 300) latencies.push(lastAnswerAt - sentAt);
          else non2xx++;
        }
        if (answer === undefined || answer.close) {
          errors++;
          break;
        }
      }
    } catch (error) {
      failure ??= error;
    } finally {
      connection.close();
    }
  };
  await Promise.all(Array.from({ length: job.connections }, drive));
  if (failure !== undefined) throw failure;
  const [count, elapsedS] = [latencies.length, (lastAnswerAt - started) / 1000];
  return {
    count,
    non2xx,
    errors,
    statusCodes,
    rps: elapsedS > 0 ? count / elapsedS : 0,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    maxMs: quantile(latencies, 1),
  };
}

async function runFlow(job: FlowJob) {
  const connection = await openConnection(job.url);
  const steps: Awaited<ReturnType<typeof mfaFlowOnce>>[] = [];
  while (steps.length < job.flows) {
    const user = job.users[Math.floor(steps.length / job.flowsPerUser)];
    if (user === undefined) break; // every user has spent its flows
    steps.push(await mfaFlowOnce(connection, user, job.orgId, `${job.fingerprintPrefix}-${steps.length}`));
  }
  connection.close();
  const p50 = (pick: (step: (typeof steps)[number]) => number) => quantile(steps.map(pick), 0.5);
  // signInP50Ms: Login + VerifyMFA without fetching the code (GetOTP, the dev server's stand-in for the phone).
  return {
    flows: steps.length,
    flowP50Ms: p50((s) => s.loginMs + s.otpMs + s.verifyMs),
    loginP50Ms: p50((s) => s.loginMs),
    otpP50Ms: p50((s) => s.otpMs),
    verifyP50Ms: p50((s) => s.verifyMs),
    signInP50Ms: p50((s) => s.loginMs + s.verifyMs),
  };
}

/** Flows per SMS user: a flow sends one OTP, and the per-phone send limit allows 5 per 15 minutes. */
export const FLOWS_PER_USER = 5;

/** Logs `user` in to `orgId` from a new device `fingerprint` (MFA required) and verifies the SMS or app code. */
export async function mfaFlowOnce(connection: Http1Connection, user: FlowJob["users"][number], orgId: string, fingerprint: string) {
  const t0 = performance.now();
  const login = await connectCall(connection, "AuthService/Login", { email: user.email, password: user.password, orgId, deviceFingerprint: fingerprint });
  const t1 = performance.now();
  const challengeId = (login.mfaRequired as { challengeId?: string } | undefined)?.challengeId;
  if (challengeId === undefined) throw new Error(`expected mfaRequired, got ${JSON.stringify(login)}`);
  // The next time step's code: the enrolment used up the current one (a step is accepted once, ±1 step of drift).
  // No factor field for SMS (unspecified is SMS), so this flow also runs against checkouts from before factors.
  const [otp, factor] =
    user.totpSecret === undefined
      ? [((await connectCall(connection, "DevService/GetOTP", { challengeId })) as { otp: string }).otp, {}]
      : [totpCodeAt(user.totpSecret, Date.now() + 30_000), { factor: "MFA_FACTOR_TOTP" }];
  const t2 = performance.now();
  const tokens = await connectCall(connection, "AuthService/VerifyMFA", { challengeId, otp, ...factor });
  const t3 = performance.now();
  if (typeof tokens.accessToken !== "string") throw new Error("VerifyMFA returned no access token");
  return { loginMs: t1 - t0, otpMs: t2 - t1, verifyMs: t3 - t2 };
}

/** A unary call in Connect's JSON protocol; throws unless it answers 200. */
async function connectCall(connection: Http1Connection, method: string, body: unknown): Promise<Record<string, unknown>> {
  const spec = { method: "POST", path: `/gatehouse.v1.${method}`, headers: { "content-type": "application/json" }, body: JSON.stringify(body) } as const;
  const answer = await connection.request(spec);
  if (answer === undefined) throw new Error(`${method}: the connection ended before its answer`);
  if (answer.status !== 200) throw new Error(`${method}: HTTP ${answer.status} ${answer.body.toString()}`);
  return JSON.parse(answer.body.toString()) as Record<string, unknown>;
}

if (import.meta.main) {
  const job = JSON.parse(await text(process.stdin)) as LoadJob | FlowJob;
  const result = job.kind === "load" ? await runSocketLoad(job) : await runFlow(job);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
