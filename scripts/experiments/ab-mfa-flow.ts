/**
 * The MFA flow (Login → GetOTP → VerifyMFA, cheap-hash users, c=1) through two live servers, this
 * checkout's and another's, alternated flow by flow so that the machine's phases fall on both alike: a
 * paired comparison for differences of a few hundred microseconds, which the full bench's runs of one
 * side after the other cannot resolve (README "Performance").
 *
 *   node --conditions=@gatehouse/source scripts/experiments/ab-mfa-flow.ts <other checkout> [sqlite|postgres]
 *
 * The other checkout is a second clone at the commit to compare, after its own `npm ci` (see
 * support/ab-sides.ts). `FLOWS` (default 400) flows are measured per side after 40 each to warm up.
 */
import { CHEAP_ENV } from "../bench/fixture.ts";
import { abArguments, withAbSides, type AbSide } from "./support/ab-sides.ts";
import { FLOWS_PER_USER, mfaFlowOnce, openConnection, type Http1Connection } from "../bench/load-runner.ts";
import { median } from "../bench/stats.ts";

const { other, dialect } = abArguments("ab-mfa-flow.ts");
const FLOWS = Number(process.env.FLOWS ?? 400);
const WARM_UP = 40;

interface Flows {
  readonly side: AbSide;
  readonly connection: Http1Connection;
  flowsDone: number;
  readonly flowMs: number[];
  readonly loginMs: number[];
  readonly verifyMs: number[];
}

const fixture = { policyEntries: 10, cheapMfaUsers: Math.ceil((FLOWS + WARM_UP) / FLOWS_PER_USER) + 1 };
await withAbSides(other, dialect, fixture, CHEAP_ENV, async (sides) => {
  const flows: Flows[] = await Promise.all(
    sides.map(async (side) => ({
      side,
      connection: await openConnection(side.server.url),
      flowsDone: 0,
      flowMs: [],
      loginMs: [],
      verifyMs: [],
    })),
  );
  const flowOn = async (of: Flows, record: boolean) => {
    const user = of.side.fixture.cheapMfaUsers[Math.floor(of.flowsDone / FLOWS_PER_USER)]!;
    const step = await mfaFlowOnce(of.connection, user, of.side.fixture.orgMfa, `ab-${of.flowsDone}`);
    of.flowsDone++;
    if (!record) return;
    of.flowMs.push(step.loginMs + step.otpMs + step.verifyMs);
    of.loginMs.push(step.loginMs);
    of.verifyMs.push(step.verifyMs);
  };
  try {
    for (let i = 0; i < WARM_UP; i++) for (const of of flows) await flowOn(of, false);
    // Which side goes first alternates too, so neither always follows the other's flow.
    for (let i = 0; i < FLOWS; i++) for (const of of i % 2 === 0 ? flows : [...flows].reverse()) await flowOn(of, true);
  } finally {
    for (const of of flows) of.connection.close();
  }

  console.log(`${dialect}, ${FLOWS} flows per side, alternated flow by flow:`);
  for (const of of flows)
    console.log(
      `  ${of.side.name}: flow ${median(of.flowMs).toFixed(2)} ms (Login ${median(of.loginMs).toFixed(2)}, VerifyMFA ${median(of.verifyMs).toFixed(2)})`,
    );
  const [mine, theirs] = flows as [Flows, Flows];
  const differences = mine.flowMs.map((ms, i) => ms - theirs.flowMs[i]!);
  const faster = differences.filter((difference) => difference < 0).length;
  console.log(`  this − other, flow by flow: median ${median(differences).toFixed(2)} ms; this checkout faster in ${faster} of ${FLOWS}`);
});
