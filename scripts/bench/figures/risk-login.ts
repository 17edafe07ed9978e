/**
 * Login throughput with the risk engine enforcing against it off, on one SQLite server with the production
 * Argon2id, in the same run: runs alternate between the two modes (the org's policy switched between them), so a
 * neighbour's load on the shared cores moves both alike. The engine adds store reads before the unit of work and
 * an event, the user's history and the platform's counts inside it; the hash is expected to bury them.
 */
import { join } from "node:path";
import { SYSTEM_ACTOR } from "@gatehouse/core";
import { pct, sized, table, verdict, type Figure } from "../figure.ts";
import { benchEngine, CHEAP_ENV, seedFixture } from "../fixture.ts";
import { runLoad, type LoadResult } from "../load.ts";
import type { HttpRequestSpec } from "../load-runner.ts";
import { serverEnv, withServer } from "../server.ts";
import { fmt, median } from "../stats.ts";

type Mode = "off" | "enforce";

async function setMode(databaseUrl: string, orgId: string, mode: Mode | "audit"): Promise<void> {
  const engine = await benchEngine(databaseUrl, CHEAP_ENV);
  try {
    await engine.gatehouse.admin.updateOrgRiskPolicy(SYSTEM_ACTOR, { orgId, patch: { mode } });
  } finally {
    await engine.close();
  }
}

export const riskLogin: Figure = {
  name: "risk-login",
  title: "Login throughput with the risk engine enforcing vs off",
  async run(context) {
    const o = sized(context, { runs: 7, logins: 40, concurrency: 2, warmUp: 10 }, { runs: 1, logins: 2, concurrency: 1, warmUp: 1 });
    const databaseUrl = join(context.tmpDir, "risk-login.sqlite");
    const fixture = await seedFixture({ databaseUrl, policyEntries: 10 });
    const { email, password } = fixture.loginUser;
    const login: HttpRequestSpec = {
      method: "POST",
      path: "/gatehouse.v1.AuthService/Login",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password, orgId: fixture.orgNoMfa, deviceFingerprint: "bench-laptop" }),
    };
    const runs = await withServer({ root: context.root, env: serverEnv(databaseUrl) }, async (server) => {
      const logins = (amount: number) => runLoad(context.root, { kind: "load", url: server.url, connections: o.concurrency, amount, requests: [login] });
      // Learnt in audit first, as an org would roll it out: the enforcing runs judge a familiar sign-in, which gets its session.
      await setMode(databaseUrl, fixture.orgNoMfa, "audit");
      await logins(o.warmUp);
      const measured: Record<Mode, LoadResult[]> = { off: [], enforce: [] };
      for (let run = 0; run < o.runs; run++) {
        for (const mode of run % 2 === 0 ? (["off", "enforce"] as const) : (["enforce", "off"] as const)) {
          await setMode(databaseUrl, fixture.orgNoMfa, mode);
          measured[mode].push(await logins(o.logins * o.concurrency));
        }
        context.log(`run ${run + 1}: off ${measured.off.at(-1)!.rps.toFixed(1)}/s, enforce ${measured.enforce.at(-1)!.rps.toFixed(1)}/s`);
      }
      return measured;
    });
    const ratios = runs.enforce.map((run, i) => run.rps / runs.off[i]!.rps);
    const ratio = median(ratios);
    const refused = [...runs.off, ...runs.enforce].reduce((sum, run) => sum + run.non2xx + run.errors, 0);
    const rows = [
      {
        measurement: `Risk: Login throughput with the engine enforcing / off (production Argon2id, SQLite, ${o.concurrency} clients)`,
        figure: `${pct(ratio)}, median of ${ratios.length} runs' ratios (medians ${fmt(median(runs.enforce.map((r) => r.rps)), 1)} / ${fmt(median(runs.off.map((r) => r.rps)), 1)} per s); ${fmt(refused)} refused`,
        goal: "≥ 95% (within noise: the KDF dominates)",
        result: verdict(ratio >= 0.95 && refused === 0),
      },
    ];
    const details = [
      `${o.runs} runs of ${o.logins * o.concurrency} logins by one user at ${o.concurrency} clients, the modes alternating (which goes first swaps each run); the user's sign-in learnt in \`audit\` first, so \`enforce\` judges a familiar sign-in and issues its session as \`off\` does.`,
      "",
      table(
        ["run", "off logins/s", "enforce logins/s", "enforce / off", "off p50", "enforce p50"],
        runs.off.map((off, i) => {
          const on = runs.enforce[i]!;
          return [String(i + 1), fmt(off.rps, 1), fmt(on.rps, 1), pct(on.rps / off.rps), `${fmt(off.p50Ms, 1)} ms`, `${fmt(on.p50Ms, 1)} ms`];
        }),
      ),
    ].join("\n");
    return { rows, details, data: { ratios, off: runs.off, enforce: runs.enforce } };
  },
};
