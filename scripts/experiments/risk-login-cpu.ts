/**
 * What the risk engine adds to a Login's CPU at a full history: one user signs in `WARM_UP` times in `audit` (default
 * 550, past the 500 sign-ins the engine reads), then `ROUNDS` (default 30) rounds of `LOGINS` (default 25) Logins with
 * the org's mode `off`, then as many in `enforce`, in process through the server's composition root on SQLite with the
 * cheap password hash (the hash's CPU would bury the engine's). Prints the median and quartiles of the rounds' CPU per
 * login, enforce less off: this process's CPU (the main thread, where SQLite and the engine run), so side by side
 * rounds cancel a neighbour's load; with `MEASURE=wall`, each Login's wall time instead (what the engine adds to the
 * sign-in's latency, the part of it that overlaps the hash left out). Every Login must get its session in both modes.
 *
 *   node --conditions=@gatehouse/source scripts/experiments/risk-login-cpu.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SYSTEM_ACTOR } from "@gatehouse/core";
import { benchEngine, CHEAP_ENV, PASSWORD, seedFixture } from "../bench/fixture.ts";

const WARM_UP = Number(process.env.WARM_UP ?? 550);
const ROUNDS = Number(process.env.ROUNDS ?? 30);
const LOGINS = Number(process.env.LOGINS ?? 25);
const WALL = process.env.MEASURE === "wall";

const dir = mkdtempSync(join(tmpdir(), "risk-login-cpu-"));
try {
  const databaseUrl = join(dir, "risk.sqlite");
  const fixture = await seedFixture({ databaseUrl, policyEntries: 10 });
  const engine = await benchEngine(databaseUrl, CHEAP_ENV);
  try {
    const { gatehouse } = engine;
    const request = {
      clientIp: "198.51.100.7",
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    };
    /** CPU ms (or wall ms) per Login of `logins` Logins under `mode`. */
    const cpuPerLogin = async (mode: "off" | "audit" | "enforce", logins: number) => {
      await gatehouse.admin.updateOrgRiskPolicy(SYSTEM_ACTOR, { orgId: fixture.orgNoMfa, patch: { mode } });
      const [cpuBefore, wallBefore] = [process.cpuUsage(), performance.now()];
      for (let i = 0; i < logins; i++) {
        const outcome = await gatehouse.login({
          email: "cheap-login@bench.test",
          password: PASSWORD,
          orgId: fixture.orgNoMfa,
          deviceFingerprint: "bench",
          request,
        });
        if (outcome.kind !== "tokens") throw new Error(`${mode}: expected tokens, got ${outcome.kind}`);
      }
      const cpu = process.cpuUsage(cpuBefore);
      return (WALL ? performance.now() - wallBefore : (cpu.user + cpu.system) / 1000) / logins;
    };
    await cpuPerLogin("audit", WARM_UP);
    const added: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const off = await cpuPerLogin("off", LOGINS);
      added.push((await cpuPerLogin("enforce", LOGINS)) - off);
    }
    added.sort((a, b) => a - b);
    const at = (q: number) => added[Math.floor(q * (added.length - 1))]!.toFixed(3);
    console.log(
      `engine's added ${WALL ? "wall time" : "CPU"} per Login at a ${Math.min(WARM_UP, 500)}-sign-in history: median ${at(0.5)} ms (quartiles ${at(0.25)}–${at(0.75)} ms), ${ROUNDS} rounds of ${LOGINS}`,
    );
  } finally {
    await engine.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
