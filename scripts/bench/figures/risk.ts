/**
 * The risk engine on a generated login history (scripts/risk-trace.ts), through `gatehouse risk evaluate`'s own
 * code in process: the share of account takeovers it stepped up or blocked, the share of owners' sign-ins it
 * asked again, and the score's cost per sign-in (no network call is made).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { evaluateDataset } from "../../../apps/server/src/risk/evaluate.ts";
import { openIpData } from "../../../apps/server/src/risk/ip-data.ts";
import { generateTrace } from "../../risk-trace.ts";
import { pct, sized, table, verdict, type Figure } from "../figure.ts";
import { fmt } from "../stats.ts";

export const risk: Figure = {
  name: "risk",
  title: "Risk engine on a generated login history",
  async run(context) {
    const o = sized(context, { users: 2000, days: 180, seeds: [1, 2] }, { users: 40, days: 60, seeds: [1] });
    const results = [];
    for (const seed of o.seeds) {
      const dataset = join(context.tmpDir, `trace-${seed}.csv`);
      writeFileSync(dataset, `${generateTrace({ users: o.users, days: o.days, seed }).join("\n")}\n`);
      const result = await evaluateDataset(dataset, openIpData());
      context.log(`seed ${seed}: caught ${result.attack_caught_rate}, owners asked ${result.owner_reauth_rate}, score p99 ${result.score_ms?.p99} ms`);
      results.push({ seed, ...result });
    }
    const worstCaught = Math.min(...results.map((r) => r.attack_caught_rate));
    const worstReauth = Math.max(...results.map((r) => r.owner_reauth_rate));
    const worstP99 = Math.max(...results.map((r) => r.score_ms?.p99 ?? Number.POSITIVE_INFINITY));
    const rows = [
      {
        measurement: "Risk: account takeovers stepped up or blocked (worst seed)",
        figure: pct(worstCaught),
        goal: "≥ 99%",
        result: verdict(worstCaught >= 0.99),
      },
      { measurement: "Risk: owners' sign-ins asked again (worst seed)", figure: pct(worstReauth), goal: "≤ 3%", result: verdict(worstReauth <= 0.03) },
      { measurement: "Risk: score per sign-in, p99 (no network)", figure: `${fmt(worstP99 * 1000, 0)} µs`, goal: "< 1 ms", result: verdict(worstP99 < 1) },
    ];
    const details = [
      `\`node scripts/risk-trace.ts --users ${o.users} --days ${o.days} --seed N\`, then \`gatehouse risk evaluate --dataset\` with the default policy (score ≥ 2 asks for a second factor). What the trace models: docs/risk.md.`,
      "",
      table(
        ["seed", "sign-ins", "ATO sign-ins", "caught", "owner sign-ins", "asked again", "score p50", "score p99"],
        results.map((r) => [
          String(r.seed),
          fmt(r.sign_ins),
          fmt(r.attack_logins),
          pct(r.attack_caught_rate),
          fmt(r.owner_logins),
          pct(r.owner_reauth_rate),
          `${fmt((r.score_ms?.p50 ?? 0) * 1000, 0)} µs`,
          `${fmt((r.score_ms?.p99 ?? 0) * 1000, 0)} µs`,
        ]),
      ),
    ].join("\n");
    return { rows, details, data: results };
  },
};
