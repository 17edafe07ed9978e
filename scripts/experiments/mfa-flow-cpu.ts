/**
 * Where an MFA flow's time goes on this machine: blocks of flows (Login → GetOTP → VerifyMFA, cheap-hash
 * users, c=1) through one live server, each block reporting its median flow next to the CPU time that the
 * server process, the database's processes (PostgreSQL's, from /proc; SQLite runs inside the server) and
 * this client spent per flow (the scheduler's count of each thread's run time, /proc/<pid>/task/<tid>/schedstat). When their sum is close to the flow's time, the flow is CPU-bound: every step
 * waits for the one before, so what makes it faster is less work, not more overlap. Linux only (/proc).
 *
 *   node --conditions=@gatehouse/source scripts/experiments/mfa-flow-cpu.ts [sqlite|postgres]
 *
 * `BLOCKS` (default 8) blocks of `FLOWS` (default 100) flows after 40 to warm up. `CPU_PROF=1` runs the server
 * with `--cpu-prof` and prints its main thread's busy and idle time over the blocks (start-up and warm-up excluded). PostgreSQL creates and
 * drops one database through `BENCH_POSTGRES_URL` (default postgres://postgres@127.0.0.1:5432/postgres),
 * and charges the flows every `postgres` process on the machine: run it on a quiet database server.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHEAP_ENV } from "../bench/fixture.ts";
import { dialectArgument, withFixtureServer } from "./support/fixture-server.ts";
import { cpuMs, postgresCpuMs } from "./support/process-cpu.ts";
import { summariseProfile } from "./support/profile.ts";
import { FLOWS_PER_USER, mfaFlowOnce, openConnection } from "../bench/load-runner.ts";
import { median } from "../bench/stats.ts";

const dialect = dialectArgument("mfa-flow-cpu.ts", "[sqlite|postgres]", 0);
const BLOCKS = Number(process.env.BLOCKS ?? 8);
const FLOWS = Number(process.env.FLOWS ?? 100);
const WARM_UP = 40;

const root = new URL("../..", import.meta.url).pathname;
const profiling = process.env.CPU_PROF === "1";
const profileDir = mkdtempSync(join(tmpdir(), "gatehouse-flow-cpu-"));
const fixture = { policyEntries: 10, cheapMfaUsers: Math.ceil((WARM_UP + BLOCKS * FLOWS) / FLOWS_PER_USER) + 1 };
const nodeArgs = profiling ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
try {
  // The span of the blocks on the monotonic clock, so that the profile's start-up and warm-up do not count.
  const blocksUs = await withFixtureServer({ root, dialect, fixture, env: CHEAP_ENV, nodeArgs }, async ({ server, fixture: seeded }) => {
    let done = 0;
    const connection = await openConnection(server.url);
    const flow = async () => {
      const user = seeded.cheapMfaUsers[Math.floor(done / FLOWS_PER_USER)]!;
      const step = await mfaFlowOnce(connection, user, seeded.orgMfa, `flow-cpu-${done++}`);
      return step.loginMs + step.otpMs + step.verifyMs;
    };
    for (let i = 0; i < WARM_UP; i++) await flow();
    const fromUs = Number(process.hrtime.bigint() / 1000n);
    console.log(`${dialect}: ${BLOCKS} blocks of ${FLOWS} flows; CPU per flow in ms (server + database + this client = sum)`);
    for (let block = 0; block < BLOCKS; block++) {
      const serverBefore = cpuMs(String(server.pid));
      const postgresBefore = postgresCpuMs();
      const clientBefore = process.cpuUsage();
      const flowMs: number[] = [];
      for (let i = 0; i < FLOWS; i++) flowMs.push(await flow());
      const clientMs = (({ user, system }) => (user + system) / 1000)(process.cpuUsage(clientBefore)) / FLOWS;
      const serverMs = (cpuMs(String(server.pid)) - serverBefore) / FLOWS;
      let databaseTotalMs = 0;
      for (const [pid, ms] of postgresCpuMs()) databaseTotalMs += ms - (postgresBefore.get(pid) ?? 0);
      const databaseMs = databaseTotalMs / FLOWS;
      console.log(
        `  block ${block + 1}: flow p50 ${median(flowMs).toFixed(2)} ms; CPU server ${serverMs.toFixed(2)} + database ${databaseMs.toFixed(2)} + client ${clientMs.toFixed(2)} = ${(serverMs + databaseMs + clientMs).toFixed(2)}`,
      );
    }
    connection.close();
    return { fromUs, toUs: Number(process.hrtime.bigint() / 1000n) };
  });
  // The server writes its profile as it stops, which withFixtureServer has done.
  if (profiling) {
    const [file] = readdirSync(profileDir);
    const { busyMs, idleMs } = summariseProfile(join(profileDir, file!), [], 0, blocksUs);
    const flows = BLOCKS * FLOWS;
    console.log(
      `  server main thread over the blocks: ${busyMs.toFixed(0)} ms busy, ${idleMs.toFixed(0)} ms idle (${(busyMs / flows).toFixed(2)} and ${(idleMs / flows).toFixed(2)} ms per flow)`,
    );
  }
} finally {
  rmSync(profileDir, { recursive: true, force: true });
}
