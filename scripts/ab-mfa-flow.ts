/**
 * The MFA flow (Login → GetOTP → VerifyMFA, cheap-hash users, c=1) through two live servers, this
 * checkout's and another's, alternated flow by flow so that the machine's phases fall on both alike: a
 * paired comparison for differences of a few hundred microseconds, which the full bench's runs of one
 * side after the other cannot resolve (README "Performance").
 *
 *   node --conditions=@gatehouse/source scripts/ab-mfa-flow.ts <other checkout> [sqlite|postgres]
 *
 * The other checkout is a second clone at the commit to compare, after its own `npm ci`; both are built
 * (`npm run build`) and run from `dist/`, as `npm start` runs. Both must share the schema: this checkout
 * seeds both databases. `FLOWS` (default 400) flows are measured per side after 40 each to warm up.
 * PostgreSQL creates and drops one database per side through `BENCH_POSTGRES_URL`
 * (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { CHEAP_ENV, seedFixture, type Fixture } from "./bench/fixture.ts";
import { mfaFlowOnce } from "./bench/mfa-flow-once.ts";
import { buildServerDist, startBenchServer, type BenchServer } from "./bench/server.ts";
import { serverEnv } from "./bench/server-bench.ts";
import { median } from "./bench/stats.ts";

const [otherArg, dialect = "postgres"] = process.argv.slice(2);
if (otherArg === undefined || (dialect !== "sqlite" && dialect !== "postgres")) throw new Error("usage: ab-mfa-flow.ts <other checkout> [sqlite|postgres]");
const FLOWS = Number(process.env.FLOWS ?? 400);
const WARM_UP = 40;
const FLOWS_PER_USER = 5; // the per-phone send limit: 5 OTPs per 15 minutes

interface Side {
  readonly name: string;
  readonly server: BenchServer;
  readonly fixture: Fixture;
  readonly agent: Agent;
  flowsDone: number;
  readonly flowMs: number[];
  readonly loginMs: number[];
  readonly verifyMs: number[];
}

const roots = { "this checkout": resolve(import.meta.dirname, ".."), "other checkout": resolve(otherArg) };
const scratch = mkdtempSync(join(tmpdir(), "gatehouse-ab-"));
const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const admin = dialect === "postgres" ? new pg.Client({ connectionString: adminUrl }) : null;
await admin?.connect();
const databases: string[] = [];
const sides: Side[] = [];
try {
  for (const [name, root] of Object.entries(roots)) {
    buildServerDist(root);
    let databaseUrl = join(scratch, `${databases.length}.sqlite`);
    if (admin !== null) {
      const database = `gatehouse_ab_${process.pid}_${databases.length}`;
      await admin.query(`CREATE DATABASE ${database}`);
      databases.push(database);
      const url = new URL(adminUrl);
      url.pathname = `/${database}`;
      databaseUrl = url.toString();
    } else {
      databases.push(databaseUrl);
    }
    const fixture = await seedFixture({
      databaseUrl,
      policyEntries: 10,
      mfaUsers: 0,
      cheapMfaUsers: Math.ceil((FLOWS + WARM_UP) / FLOWS_PER_USER) + 1,
      verifyChallenges: 0,
    });
    const server = await startBenchServer({ root, env: { ...serverEnv(databaseUrl), ...CHEAP_ENV } });
    sides.push({ name, server, fixture, agent: new Agent({ keepAlive: true, maxSockets: 1 }), flowsDone: 0, flowMs: [], loginMs: [], verifyMs: [] });
  }

  const flowOn = async (side: Side, record: boolean) => {
    const user = side.fixture.cheapMfaUsers[Math.floor(side.flowsDone / FLOWS_PER_USER)]!;
    const step = await mfaFlowOnce(side.agent, new URL(side.server.url), user, side.fixture.orgMfa, `ab-${side.flowsDone}`);
    side.flowsDone++;
    if (!record) return;
    side.flowMs.push(step.loginMs + step.otpMs + step.verifyMs);
    side.loginMs.push(step.loginMs);
    side.verifyMs.push(step.verifyMs);
  };
  for (let i = 0; i < WARM_UP; i++) for (const side of sides) await flowOn(side, false);
  // Which side goes first alternates too, so neither always follows the other's flow.
  for (let i = 0; i < FLOWS; i++) for (const side of i % 2 === 0 ? sides : [...sides].reverse()) await flowOn(side, true);

  console.log(`${dialect}, ${FLOWS} flows per side, alternated flow by flow:`);
  for (const side of sides)
    console.log(
      `  ${side.name}: flow ${median(side.flowMs).toFixed(2)} ms (Login ${median(side.loginMs).toFixed(2)}, VerifyMFA ${median(side.verifyMs).toFixed(2)})`,
    );
  const [mine, other] = sides as [Side, Side];
  const differences = mine.flowMs.map((ms, i) => ms - other.flowMs[i]!);
  const faster = differences.filter((difference) => difference < 0).length;
  console.log(`  this − other, flow by flow: median ${median(differences).toFixed(2)} ms; this checkout faster in ${faster} of ${FLOWS}`);
} finally {
  for (const side of sides) {
    side.agent.destroy();
    await side.server.stop();
  }
  if (admin !== null) {
    for (const database of databases) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
  rmSync(scratch, { recursive: true, force: true });
}
