/**
 * Login under a flood, through the password hash queue: throughput at 64 concurrent clients,
 * the latency of one legitimate client (its own address, 127.0.0.2) alone and during a 64-client
 * bogus-login flood from 127.0.0.1, and the server's peak RSS meanwhile.
 */
import { availableParallelism } from "node:os";
import { OWASP_ARGON2ID_PARAMS } from "@gatehouse/core";
import type { Fixture } from "./fixture.ts";
import { runLoad, summarisePoint, type LoadPoint, type ProbeResult } from "./load.ts";
import { rawKdfRate, type KdfRate } from "./password-floor.ts";
import { RssSampler, type BenchServer } from "./server.ts";

export interface LoginQueueOptions {
  readonly root: string;
  /** Concurrent clients of the throughput point and of the flood. */
  readonly clients: number;
  readonly durationS: number;
  /** Legitimate logins measured with the server idle (at least). */
  readonly probeLogins: number;
}

export interface LoginQueueResult {
  readonly clients: number;
  readonly durationS: number;
  /** The server's hash concurrency: its default, the machine's cores. */
  readonly concurrency: number;
  /** Raw Argon2id at that concurrency, right before the throughput point. */
  readonly rawKdf: KdfRate;
  /** 64 clients logging in with the right password; rps counts successes, `non2xx` the refused. */
  readonly throughput: LoadPoint;
  readonly throughputRatio: number;
  readonly unloaded: ProbeResult;
  readonly flood: LoadPoint;
  readonly duringFlood: ProbeResult;
  readonly p99Ratio: number;
  readonly peakRssBytes: number | null;
}

const json = { "content-type": "application/json" };
const LEGITIMATE_ADDRESS = "127.0.0.2";

export async function measureLoginQueue(
  server: BenchServer,
  fixture: Fixture,
  options: LoginQueueOptions,
  log: (line: string) => void,
): Promise<LoginQueueResult> {
  const { root, clients, durationS } = options;
  const loginBody = JSON.stringify({
    email: fixture.loginUser.email,
    password: fixture.loginUser.password,
    orgId: fixture.orgNoMfa,
    deviceFingerprint: "bench-laptop",
  });
  // Alone: `probeLogins` logins, enough for a p99 that is not just the slowest one. During the flood: only
  // what fits inside it, or logins made after the flood ended would count as made during it.
  const probe = (delayS: number, probeS: number, minLogins: number) =>
    runLoad(root, {
      kind: "login-probe",
      url: server.url,
      body: loginBody,
      localAddress: LEGITIMATE_ADDRESS,
      delayS,
      durationS: probeS,
      minLogins,
    });
  const sampler = new RssSampler(server.pid);

  const unloaded = await probe(0, 0, options.probeLogins);
  log(
    `  legitimate login alone: p50 ${unloaded.p50Ms.toFixed(1)} ms, p99 ${unloaded.p99Ms.toFixed(1)} ms (${unloaded.logins} logins, ${unloaded.failures} failed)`,
  );

  const concurrency = availableParallelism();
  const rawKdf = await rawKdfRate(OWASP_ARGON2ID_PARAMS, concurrency, Math.max(concurrency, Math.round(durationS * 20)));
  const throughputRun = await runLoad(root, {
    kind: "autocannon",
    url: server.url,
    connections: clients,
    duration: durationS,
    requests: [{ method: "POST", path: "/gatehouse.v1.AuthService/Login", headers: json, body: loginBody }],
  });
  const throughput = summarisePoint([throughputRun], null);
  const throughputRatio = throughput.rps / rawKdf.hashesPerS;
  log(
    `  Login, ${clients} clients: ${throughput.rps.toFixed(1)} logins/s (raw Argon2id ${rawKdf.hashesPerS.toFixed(1)}/s at c=${concurrency}), ${throughput.non2xx} refused`,
  );

  // The flood: unknown emails from 127.0.0.1; the legitimate client starts once the queue is full.
  const bogus = Array.from({ length: 16 }, (_, i) => ({
    method: "POST" as const,
    path: "/gatehouse.v1.AuthService/Login",
    headers: json,
    body: JSON.stringify({ email: `bogus${i}@bench.test`, password: "not the password", orgId: fixture.orgNoMfa }),
  }));
  const settleS = Math.min(1, durationS / 4);
  const [floodRun, duringFlood] = await Promise.all([
    runLoad(root, { kind: "autocannon", url: server.url, connections: clients, duration: durationS, requests: bogus }),
    probe(settleS, durationS - 2 * settleS, 1),
  ]);
  const flood = summarisePoint([floodRun], null);
  const peakRssBytes = sampler.stop();
  const p99Ratio = duringFlood.p99Ms / unloaded.p99Ms;
  log(
    `  legitimate login during a ${clients}-client flood: p50 ${duringFlood.p50Ms.toFixed(1)} ms, p99 ${duringFlood.p99Ms.toFixed(1)} ms = ${p99Ratio.toFixed(2)}× alone ` +
      `(${duringFlood.logins} logins, ${duringFlood.failures} failed); flood answered ${floodRun.count + floodRun.non2xx} (${JSON.stringify(floodRun.statusCodes)}); ` +
      `server peak RSS ${peakRssBytes === null ? "n/a" : `${(peakRssBytes / 2 ** 20).toFixed(1)} MB`}`,
  );
  return { clients, durationS, concurrency, rawKdf, throughput, throughputRatio, unloaded, flood, duringFlood, p99Ratio, peakRssBytes };
}
