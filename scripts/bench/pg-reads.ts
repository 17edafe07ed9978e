/**
 * The three reads every browser request makes (bearer session, membership, policy version), in process on
 * PostgreSQL, with and without named statements and at two pool sizes, round-robin so that the machine's
 * drift falls on every variant alike. Each round runs `concurrency` request loops for `roundMs`; the figure
 * is requests (three reads each) per second, median (min–max) of the rounds.
 */
import { availableParallelism } from "node:os";
import { DEFAULT_BROWSER_POLICY } from "@gatehouse/core";
import type * as Pg from "pg";
import { fmt, median } from "./stats.ts";

export interface PgReadsOptions {
  readonly rounds: number;
  readonly roundMs: number;
  readonly concurrency: number;
}

interface Variant {
  readonly name: string;
  readonly preparedStatements: boolean;
  readonly max: number;
}

const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export async function measurePgReads(options: PgReadsOptions, log: (line: string) => void): Promise<string> {
  const pg = (await import("pg")).default;
  const { openPostgresStores } = await import("@gatehouse/adapters-postgres");
  const admin: Pg.Client = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const database = `gatehouse_pg_reads_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  const cores = availableParallelism();
  const variants: Variant[] = [
    { name: "unnamed statements, pool 10", preparedStatements: false, max: 10 },
    { name: "named statements, pool 10", preparedStatements: true, max: 10 },
    { name: `named statements, pool ${2 * cores} (2 × cores)`, preparedStatements: true, max: 2 * cores },
  ];
  const opened = [];
  try {
    for (const variant of variants)
      opened.push(await openPostgresStores({ connectionString: url.toString(), max: variant.max, preparedStatements: variant.preparedStatements }));
    const { stores } = opened[0]!;
    await stores.orgs.create({ id: "o", name: "O", createdAt: 1 });
    await stores.users.create({
      id: "u",
      email: "u@example.com",
      displayName: "U",
      passwordHash: "h",
      phone: null,
      phoneVerified: false,
      platformAdmin: false,
      createdAt: 1,
    });
    await stores.orgs.putMembership({ orgId: "o", userId: "u", role: "member" });
    const { version } = await stores.browserPolicies.put("o", DEFAULT_BROWSER_POLICY);
    const perVariant: number[][] = variants.map(() => []);
    for (let round = -1; round < options.rounds; round++) {
      for (const [index, { stores: s }] of opened.entries()) {
        let requests = 0;
        const until = performance.now() + options.roundMs;
        const loop = async () => {
          while (performance.now() < until) {
            await s.sessions.findActiveByAccessTokenHash("0".repeat(64), 1);
            await s.orgs.findMembership("o", "u");
            await s.browserPolicies.getIfChanged("o", version);
            requests++;
          }
        };
        const start = performance.now();
        await Promise.all(Array.from({ length: options.concurrency }, loop));
        // Round -1 warms every variant up (connections, JIT) and is not counted.
        if (round >= 0) perVariant[index]!.push(requests / ((performance.now() - start) / 1000));
      }
      if (round >= 0) log(`  round ${round + 1}: ${variants.map((v, i) => `${v.name} ${perVariant[i]!.at(-1)!.toFixed(0)}/s`).join(", ")}`);
    }
    const base = median(perVariant[0]!);
    return [
      `The three per-request reads on PostgreSQL, in process, ${options.concurrency} concurrent request loops, ${options.rounds} rounds of ${options.roundMs} ms per variant (round-robin); requests (3 reads each) per second, median (min–max) of the rounds`,
      "",
      "| Variant | requests/s | vs unnamed, pool 10 |",
      "|---|---|---|",
      ...variants.map((v, i) => {
        const runs = perVariant[i]!;
        return `| ${v.name} | ${fmt(median(runs))} (${fmt(Math.min(...runs))}–${fmt(Math.max(...runs))}) | ×${fmt(median(runs) / base, 2)} |`;
      }),
    ].join("\n");
  } finally {
    await Promise.all(opened.map((o) => o.close()));
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}
