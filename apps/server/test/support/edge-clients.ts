/**
 * Clients of the server's edge that tests and the bench share (apps/server/test/isolation.test.ts, the bench's
 * isolation figure): raw HTTP/1.1 and gRPC calls whose headers go out before their body, a latency probe timing one
 * request after another from a process of its own, and the loads both send: unauthenticated large bodies, and
 * check-urls right after a large policy save.
 */
import { spawn } from "node:child_process";
import { request as http1Request } from "node:http";
import { connect as connectHttp2, type ClientHttp2Session, type IncomingHttpHeaders } from "node:http2";

export const UPDATE_POLICY_PATH = "/gatehouse.v1.AdminService/UpdateOrgBrowserPolicy";
export const FOUR_MIB = 4 * 2 ** 20;

/** A JSON POST with a bearer token, as the web client sends check-url and the admin console a policy save. */
export const postJson = (url: string, token: string, body: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body });

/** UpdateOrgBrowserPolicy's JSON: `entries` blocked hosts, blocked.example and hosts named after `salt`, everything else allowed. */
export const policyBody = (orgId: string, entries: number, salt: number) =>
  JSON.stringify({
    orgId,
    policy: {
      accessControl: {
        allowedDomains: [],
        blockedDomains: ["blocked.example", ...Array.from({ length: entries - 1 }, (_, i) => `h${i.toString(36)}-${salt}.io`)],
        defaultAction: "allow",
        wildcardSupported: true,
      },
      actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false },
    },
  });

/** An HTTP/1.1 Connect call to UpdateOrgBrowserPolicy whose headers go out at once; `body` (when given) follows. Resolves with the status and body of the answer (status 0: the connection was cut). */
export function http1Call(url: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http1Request(`${url}${UPDATE_POLICY_PATH}`, { method: "POST", headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, text });
        req.destroy();
      });
      // A server that cuts the connection after its answer's headers ends the response without "end": the
      // call is still answered, with the status it got (a no-op after "end").
      res.on("close", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    // Past the bytes and time it drains after its answer, the server cuts a connection still sending: status 0.
    req.on("error", (error) => (body === undefined ? reject(error) : resolve({ status: 0, text: "" })));
    req.flushHeaders();
    if (body !== undefined) req.end(body);
  });
}

/** A gRPC call on `session` whose headers go out at once; resolves with its gRPC status, from the trailers or a trailers-only answer's headers. */
export function grpcCall(session: ClientHttp2Session, headers: Record<string, string>, body?: Buffer, path = UPDATE_POLICY_PATH): Promise<string | undefined> {
  const stream = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers", ...headers });
  stream.on("error", () => {});
  stream.resume();
  if (body !== undefined) stream.end(body);
  return new Promise((resolve) => {
    stream.once("response", (responseHeaders: IncomingHttpHeaders) => {
      if (responseHeaders["grpc-status"] !== undefined) resolve(String(responseHeaders["grpc-status"]));
    });
    stream.once("trailers", (trailers: IncomingHttpHeaders) => resolve(String(trailers["grpc-status"])));
    stream.once("close", () => resolve(undefined));
    // A stream the server resets (its per-session memory cap) while part of the body is still queued here ends
    // its readable side but never closes: Node waits for the queued bytes to be written, which they never are.
    // Its end, after any answer's headers and trailers, is its answer too, and the queue is dropped with it.
    stream.once("end", () => {
      resolve(undefined);
      stream.destroy();
    });
  });
}

/** A gRPC envelope around `size` bytes of message. */
export function envelope(size: number): Buffer {
  const framed = Buffer.alloc(5 + size);
  framed.writeUInt32BE(size, 1);
  return framed;
}

/** A request the probe repeats: JSON-able, for the probe's own process. */
export interface ProbeRequest {
  readonly url: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** One timed request: when it started (epoch ms, comparable across this machine's processes) and how long it took. */
export interface Sample {
  readonly start: number;
  readonly latency: number;
}

export interface Probe {
  /** Samples taken so far. */
  count(): number;
  /** Resolves once the probe has taken `count` samples in all. */
  reached(count: number): Promise<void>;
  /** Stops the probe; resolves with every sample, in order. */
  stop(): Promise<Sample[]>;
}

/**
 * Times `request` in a process of its own, one after another, until `stop` is called: the test's own process
 * is busy with the load it sends, and its pauses must not count against the server. A latency is Infinity
 * when the answer is not a 200. Each sample is reported as it is taken, so the test can wait for a count.
 */
export async function latencyProbe(request: ProbeRequest): Promise<Probe> {
  const script = `
    const { url, method, headers, body } = ${JSON.stringify(request)};
    let stopped = false;
    process.stdin.on("data", () => (stopped = true));
    const once = async () => {
      const started = performance.now();
      const response = await fetch(url, { method, headers, body });
      await response.text();
      return { start: performance.timeOrigin + started, latency: response.status === 200 ? performance.now() - started : Infinity };
    };
    (async () => {
      // One request first, so the connection and the fetch machinery are up before any latency counts.
      await once();
      process.stdout.write("ready\\n");
      while (!stopped) {
        const { start, latency } = await once();
        process.stdout.write(start + " " + latency + "\\n");
      }
      process.exit(0);
    })();`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  const samples: Sample[] = [];
  const waiters: { count: number; resolve: () => void; reject: (error: Error) => void }[] = [];
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  // A probe that dies (its fetch failed) takes no more samples: whoever waits for them is told, not left waiting.
  void exited.then(() => {
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(`the latency probe exited after ${samples.length} samples`));
  });
  let ready: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  let buffer = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line === "ready") ready();
      else {
        const [start, latency] = line.split(" ").map(Number) as [number, number];
        samples.push({ start, latency });
      }
    }
    for (const waiter of waiters.filter(({ count }) => samples.length >= count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  await isReady;
  return {
    count: () => samples.length,
    reached: (count) => (samples.length >= count ? Promise.resolve() : new Promise((resolve, reject) => waiters.push({ count, resolve, reject }))),
    stop: async () => {
      child.stdin.end("stop");
      await exited;
      return samples;
    },
  };
}

/** Times `GET /healthz` (see `latencyProbe`); `stop` resolves with the latencies. */
export async function healthzProbe(url: string): Promise<{ stop(): Promise<number[]> }> {
  const probe = await latencyProbe({ url: `${url}/healthz` });
  return { stop: async () => (await probe.stop()).map(({ latency }) => latency) };
}

/**
 * `count` unauthenticated bodies of 4 MiB over HTTP/1.1 at once, then as many gRPC calls over HTTP/2, 10 per session:
 * their HTTP statuses (0: the server cut the connection) and gRPC statuses (undefined: the stream was reset).
 */
export async function largeUnauthenticatedBodies(url: string, count: number): Promise<{ http1: number[]; grpc: (string | undefined)[] }> {
  const body = Buffer.alloc(FOUR_MIB - 1);
  const headers = { "content-type": "application/proto", "content-length": String(body.length) };
  const http1 = await Promise.all(Array.from({ length: count }, () => http1Call(url, headers, body)));
  const framed = envelope(FOUR_MIB - 6);
  // A session the server ends with GOAWAY (past its memory cap) is destroyed here, so that its streams close
  // instead of waiting for answers the server will not send.
  const sessions = Array.from({ length: Math.max(1, count / 10) }, () =>
    connectHttp2(url)
      .on("error", () => {})
      .on("goaway", function (this: ClientHttp2Session) {
        this.destroy();
      }),
  );
  try {
    const grpc = await Promise.all(sessions.flatMap((session) => Array.from({ length: 10 }, () => grpcCall(session, {}, framed))));
    return { http1: http1.map(({ status }) => status), grpc };
  } finally {
    for (const session of sessions) session.destroy();
  }
}

/**
 * An admin saves an `entries`-entry policy that blocks blocked.example, its previous version cached by a check-url as on
 * a server in service; right after, 90 check-urls arrive at once while /healthz is timed. Answers the save's status, the
 * 90 statuses, the /healthz latencies, and whether blocked.example was allowed before the save and after the burst.
 */
export async function policyStampede(url: string, admin: { orgId: string; token: string }, entries: number) {
  const checkUrl = async () => {
    const response = await postJson(`${url}/api/browser/check-url`, admin.token, JSON.stringify({ org_id: admin.orgId, url: "https://blocked.example/" }));
    return { status: response.status, allowed: ((await response.json()) as { allowed?: boolean }).allowed };
  };
  const allowedBefore = (await checkUrl()).allowed;
  // Its answer left undecoded: this process stays light for the burst below.
  const saved = await postJson(`${url}${UPDATE_POLICY_PATH}`, admin.token, policyBody(admin.orgId, entries, 0));
  await saved.arrayBuffer();
  const probe = await healthzProbe(url);
  const burst = await Promise.all(Array.from({ length: 90 }, checkUrl));
  const healthzMs = await probe.stop();
  const allowedAfter = (await checkUrl()).allowed;
  return { saved: saved.status, statuses: burst.map(({ status }) => status), healthzMs, allowedBefore, allowedAfter };
}
