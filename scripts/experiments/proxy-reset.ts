/**
 * Usage: node --conditions=@gatehouse/source scripts/experiments/proxy-reset.ts [TRUST_PROXY, default 1]
 *
 * Issue 45's operator experiment: two replicas on one PostgreSQL database behind one address (every request
 * comes from 127.0.0.1, as from a load balancer, with the client in X-Forwarded-For), a fresh connection per
 * request at 40 requests a second, and then the database stalls for 5 s (a relay holds every byte, so the
 * requests in flight and their connections pile up) and resets (every connection to it is cut). Each
 * request is a RequestPasswordReset (a rate-limit write and a read); /readyz is probed twice a second.
 * Prints every answer by status and every socket error by code: behind a proxy (TRUST_PROXY=1) the
 * per-address connection cap must not reset the proxy's connections, so the only failures are 503s.
 * With `0` the replicas count the connections per address group and answer the ones past the cap 503.
 */
import { request } from "node:http";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { resolve } from "node:path";
import { onScratchDatabase } from "../bench/scratch-database.ts";
import { serverEnv, startBenchServer, type BenchServer } from "../bench/server.ts";
import { sleep } from "../bench/stats.ts";

const TRUST_PROXY = process.argv[2] ?? "1";
const RATE_PER_SECOND = 40;
const DURATION_MS = 20_000;
const STALL_AT_MS = 5_000;
const STALL_MS = 5_000;
const REQUEST_TIMEOUT_MS = 20_000;

/** A TCP relay to PostgreSQL that can hold every byte (a stall) and cut every connection (a reset). */
async function startRelay(target: URL) {
  const pairs = new Set<[Socket, Socket]>();
  let stalled = false;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
    if (stalled) {
      client.pause();
      upstream.pause();
    }
  });
  server.listen(0, "127.0.0.1");
  await new Promise((done) => server.once("listening", done));
  return {
    port: (server.address() as AddressInfo).port,
    stall() {
      stalled = true;
      for (const pair of pairs) for (const socket of pair) socket.pause();
    },
    reset() {
      stalled = false;
      for (const pair of pairs) for (const socket of pair) socket.destroy();
      pairs.clear();
    },
    close: () => new Promise((done) => server.close(done)),
  };
}

type Outcome = { readonly status: number } | { readonly error: string };

/** One request on a connection of its own, as a load balancer's new connection: its status, or the socket error. */
function send(server: BenchServer, path: string, body: string | null, clientIp: string): Promise<Outcome> {
  return new Promise((done) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: server.port,
        path,
        method: body === null ? "GET" : "POST",
        agent: false,
        timeout: REQUEST_TIMEOUT_MS,
        headers: { "content-type": "application/json", "x-forwarded-for": clientIp, connection: "close" },
      },
      (res) => {
        res.resume();
        res.on("end", () => done({ status: res.statusCode ?? 0 }));
        res.on("error", (error: NodeJS.ErrnoException) => done({ error: error.code ?? error.message }));
      },
    );
    req.on("timeout", () => req.destroy(Object.assign(new Error("timeout"), { code: "TIMEOUT" })));
    req.on("error", (error: NodeJS.ErrnoException) => done({ error: error.code ?? error.message }));
    req.end(body ?? undefined);
  });
}

function tally(outcomes: readonly Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) {
    const key = "status" in outcome ? String(outcome.status) : `socket error ${outcome.error}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

const root = resolve(import.meta.dirname, "../..");
const result = await onScratchDatabase("proxy_reset", async (databaseUrl) => {
  const target = new URL(databaseUrl);
  const relay = await startRelay(target);
  const relayed = Object.assign(new URL(databaseUrl), { host: `127.0.0.1:${relay.port}` }).toString();
  const env = { ...serverEnv(relayed), OTP_RETURN_TO_CLIENT: "false", TRUST_PROXY, DATABASE_STATEMENT_TIMEOUT_MS: "5000" };
  const replicas: BenchServer[] = [];
  try {
    for (let i = 0; i < 2; i++) replicas.push(await startBenchServer({ root, env }));
    const requests: Promise<Outcome>[] = [];
    const probes: Promise<Outcome>[] = [];
    const started = Date.now();
    let n = 0;
    const load = setInterval(() => {
      n += 1;
      const replica = replicas[n % 2]!;
      const clientIp = `203.0.113.${n % 250}`;
      requests.push(send(replica, "/gatehouse.v1.AuthService/RequestPasswordReset", JSON.stringify({ email: `user${n}@example.com` }), clientIp));
    }, 1000 / RATE_PER_SECOND);
    const probe = setInterval(() => {
      for (const replica of replicas) probes.push(send(replica, "/readyz", null, "10.0.0.1"));
    }, 500);
    await sleep(STALL_AT_MS);
    relay.stall();
    await sleep(STALL_MS);
    relay.reset();
    await sleep(Math.max(0, DURATION_MS - (Date.now() - started)));
    clearInterval(load);
    clearInterval(probe);
    const answered = await Promise.all(requests);
    const probed = await Promise.all(probes);
    return { trustProxy: TRUST_PROXY, requests: answered.length, answers: tally(answered), probes: tally(probed) };
  } finally {
    for (const replica of replicas) await replica.stop();
    await relay.close();
  }
});
console.log(JSON.stringify(result, null, 2));
