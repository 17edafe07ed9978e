/**
 * Where a Login's CPU goes beside its Argon2id hash, as the bench's sign-in rows measure it (production hash, SQLite,
 * MFA not required, a known device): per round and concurrency c ∈ {1, 2}, LOGINS × c raw `node:crypto` hashes in this
 * process while the server idles, then LOGINS × c Logins from a child process. For each side it prints the rate and the
 * CPU per login or hash, split by thread: the server's main thread, its libuv pool (the hash, and the pool's page faults),
 * its other threads (V8's GC helpers), and the load process; for the raw side this process's pool and main thread. The
 * scheduler's own count (/proc/<pid>/task/<tid>/schedstat), not sampled ticks, so it holds on a loaded machine where the
 * rates do not. Ends with the server's peak RSS. Linux only.
 *
 *   node --conditions=@gatehouse/source scripts/experiments/login-cpu.ts
 *
 * `ROUNDS` (default 5) rounds of `LOGINS` (default 48) per concurrency, after `WARM_UP` (default 20) logins, sent by the
 * bench's load driver, the raw-socket loop (autocannon, or with `DRIVER=http` a node:http loop, until commit 0bf5dde).
 * `SERVER_NODE_ARGS` adds node flags to the server (e.g. `--perf-basic-prof` for `perf record -t <its pid>`, which it
 * prints); `CPU_PROF=1` runs the server with `--cpu-prof` and prints its main thread's busy time by area over the rounds
 * (a sampled wall-clock profile: on a loaded machine it charges the time the thread waited for a core to where it was
 * preempted, such as `writev`).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OWASP_ARGON2ID_PARAMS } from "@gatehouse/core";
import { hashOnce } from "../bench/figures/sign-in.ts";
import { runNodeJson } from "../bench/load.ts";
import { runSocketLoad } from "../bench/load-runner.ts";
import { readStatusBytes } from "../bench/server.ts";
import { median } from "../bench/stats.ts";
import { withFixtureServer } from "./support/fixture-server.ts";
import { summariseProfile } from "./support/profile.ts";

type ThreadClass = "main" | "pool" | "other" | "poolFaults";

/** CPU ms per thread class of `pid` so far: libuv names its pool threads `libuv-worker`, the main thread has the process's id. */
function threadCpuMs(pid: number): Record<ThreadClass, number> {
  const ms = { main: 0, pool: 0, other: 0, poolFaults: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      const kind = tid === String(pid) ? "main" : name.startsWith("libuv") ? "pool" : "other";
      ms[kind] += ns / 1e6;
      // minflt, the 10th field of stat: pages the pool touched for the first time (a fresh 19 MiB buffer is ~4,900).
      if (kind === "pool") ms.poolFaults += Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ")[7]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ms;
}

const minus = (a: Record<ThreadClass, number>, b: Record<ThreadClass, number>, per: number) =>
  ({
    main: (a.main - b.main) / per,
    pool: (a.pool - b.pool) / per,
    other: (a.other - b.other) / per,
    poolFaults: (a.poolFaults - b.poolFaults) / per,
  }) as Record<ThreadClass, number>;

interface Drive {
  readonly rps: number;
  readonly count: number;
  readonly failed: number;
  /** This load process's CPU over the load, per login. */
  readonly cpuMsPerLogin: number;
}

/** The child's side: `amount` Logins over `connections` keep-alive connections, as the bench's load job sends them. */
async function drive(url: string, connections: number, amount: number, body: string): Promise<Drive> {
  const cpuAtStart = process.cpuUsage();
  const requests = [{ method: "POST" as const, path: "/gatehouse.v1.AuthService/Login", headers: { "content-type": "application/json" }, body }];
  const result = await runSocketLoad({ kind: "load", url, connections, amount, requests });
  const { user, system } = process.cpuUsage(cpuAtStart);
  return { rps: result.rps, count: result.count, failed: result.non2xx + result.errors, cpuMsPerLogin: (user + system) / 1000 / amount };
}

async function main() {
  const ROUNDS = Number(process.env.ROUNDS ?? 5);
  const LOGINS = Number(process.env.LOGINS ?? 48);
  const WARM_UP = Number(process.env.WARM_UP ?? 20);
  const root = new URL("../..", import.meta.url).pathname;
  const profiling = process.env.CPU_PROF === "1";
  const profileDir = mkdtempSync(join(tmpdir(), "gatehouse-login-cpu-"));
  const nodeArgs = [...(profiling ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []), ...(process.env.SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean)];
  try {
    const window = await withFixtureServer({ root, dialect: "sqlite", fixture: { policyEntries: 10 }, nodeArgs }, async ({ server, fixture }) => {
      const { email, password } = fixture.loginUser;
      const body = JSON.stringify({ email, password, orgId: fixture.orgNoMfa, deviceFingerprint: "bench-laptop" });
      const logins = (c: number, amount: number) =>
        runNodeJson<Drive>(["--conditions=@gatehouse/source", new URL(import.meta.url).pathname, "--drive", server.url, String(c), String(amount), body], root);
      console.log(`server pid ${server.pid}`);
      await logins(2, WARM_UP);
      const fromUs = Number(process.hrtime.bigint() / 1000n);
      const ratios: Record<number, number[]> = { 1: [], 2: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const c of [1, 2]) {
          const n = LOGINS * c;
          const ownBefore = threadCpuMs(process.pid);
          let started = 0;
          const t0 = performance.now();
          await Promise.all(
            Array.from({ length: c }, async () => {
              while (started++ < n) await hashOnce(OWASP_ARGON2ID_PARAMS);
            }),
          );
          const rawRate = n / ((performance.now() - t0) / 1000);
          const own = minus(threadCpuMs(process.pid), ownBefore, n);
          const serverBefore = threadCpuMs(server.pid);
          const load = await logins(c, n);
          const srv = minus(threadCpuMs(server.pid), serverBefore, n);
          ratios[c]!.push(load.rps / rawRate);
          console.log(
            `round ${round + 1} c=${c}: raw ${rawRate.toFixed(2)}/s (pool ${own.pool.toFixed(2)} + main ${own.main.toFixed(2)} ms/hash, ${own.poolFaults.toFixed(0)} faults)` +
              ` | Login ${load.rps.toFixed(2)}/s = ${((100 * load.rps) / rawRate).toFixed(1)}%, ${load.failed} failed` +
              ` (server pool ${srv.pool.toFixed(2)} [${srv.poolFaults.toFixed(0)} faults] + main ${srv.main.toFixed(2)} + other ${srv.other.toFixed(2)}, load ${load.cpuMsPerLogin.toFixed(2)} ms/login)`,
          );
        }
      }
      for (const c of [1, 2]) console.log(`c=${c}: median Login / raw ${(100 * median(ratios[c]!)).toFixed(1)}% over ${ROUNDS} rounds`);
      console.log(`server peak RSS ${((readStatusBytes(server.pid, "VmHWM") ?? 0) / 2 ** 20).toFixed(1)} MiB`);
      return { fromUs, toUs: Number(process.hrtime.bigint() / 1000n) };
    });
    if (profiling) {
      const [file] = readdirSync(profileDir);
      const summary = summariseProfile(join(profileDir, file!), [], 25, window);
      console.log(`server main thread over the rounds: ${summary.busyMs.toFixed(0)} ms busy, ${summary.idleMs.toFixed(0)} ms idle`);
      for (const row of summary.areas) console.log(`  ${row.ms.toFixed(0).padStart(6)} ms ${row.percent.toFixed(1).padStart(5)}%  ${row.name}`);
      for (const row of summary.topFunctions) console.log(`  ${row.ms.toFixed(0).padStart(6)} ms ${row.percent.toFixed(1).padStart(5)}%  ${row.name}`);
    }
  } finally {
    rmSync(profileDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--drive") {
  const [url, c, amount, body] = process.argv.slice(3) as [string, string, string, string];
  process.stdout.write(`${JSON.stringify(await drive(url, Number(c), Number(amount), body))}\n`);
} else await main();
