/**
 * The read every browser request makes (`BrowserAccessStore.resolve`: the session, the membership and the
 * policy version in one statement), in process on PostgreSQL, round-robin so that the machine's drift falls
 * on every variant alike: unnamed statements from Gatehouse's pool, named statements from an embedder's pool
 * (the pool's connections, one per read in flight), and named statements as the server runs them (Gatehouse's
 * own pool, so the read goes over the pipelined connection), plus the same from a pool of 2 × cores. Each
 * round runs `concurrency` request loops for `roundMs`; the figure is reads per second, median (min–max) of
 * the rounds. Every variant sends the reads of one event-loop turn as one statement (adapters-kysely,
 * browser-access-batch.ts), and these loops ask together and resume together: each turn's statement waits
 * for the one before, so this measures a batch's round trip, not a server's mix of reads and HTTP work.
 */
import { availableParallelism } from "node:os";
import { DEFAULT_BROWSER_POLICY } from "@gatehouse/core";
import type * as Pg from "pg";
import type { PostgresStores } from "@gatehouse/adapters-postgres";
import { createScratchDatabase } from "./scratch-database.ts";
import { fmt, median } from "./stats.ts";

export interface PgReadsOptions {
  readonly rounds: number;
  readonly roundMs: number;
  readonly concurrency: number;
}

interface Variant {
  readonly name: string;
  readonly open: () => Promise<PostgresStores>;
}

export async function measurePgReads(options: PgReadsOptions, log: (line: string) => void): Promise<string> {
  const pg = (await import("pg")).default;
  const { openPostgresStores } = await import("@gatehouse/adapters-postgres");
  const scratch = await createScratchDatabase("gatehouse_pg_reads");
  const cores = availableParallelism();
  const connectionString = scratch.url;
  const embedderPools: Pg.Pool[] = [];
  const variants: Variant[] = [
    { name: "unnamed statements, pool 10", open: () => openPostgresStores({ connectionString, max: 10, preparedStatements: false }) },
    {
      name: "named statements, an embedder's pool of 10 (a connection per read)",
      open: () => {
        const pool = new pg.Pool({ connectionString, max: 10 });
        // As an embedder's pool must: an idle connection that breaks is emitted here.
        pool.on("error", () => {});
        embedderPools.push(pool);
        return openPostgresStores({ pool });
      },
    },
    { name: "named statements, pipelined (as the server runs)", open: () => openPostgresStores({ connectionString, max: 10 }) },
    { name: `named statements, pipelined, pool ${2 * cores} (2 × cores)`, open: () => openPostgresStores({ connectionString, max: 2 * cores }) },
  ];
  const opened: PostgresStores[] = [];
  try {
    for (const variant of variants) opened.push(await variant.open());
    const { stores } = opened[0]!;
    const now = Date.now();
    await stores.orgs.create({ id: "o", name: "O", createdAt: now });
    await stores.users.create({
      id: "u",
      email: "u@example.com",
      displayName: "U",
      passwordHash: "h",
      phone: null,
      phoneVerified: false,
      platformAdmin: false,
      emailVerifiedAt: 1,
      createdAt: now,
    });
    await stores.orgs.putMembership({ orgId: "o", userId: "u", role: "member" });
    const device = { fingerprint: "fp", trusted: false, trustedUntil: null, trustRevokedAt: null, createdAt: now, lastSeenAt: now, sessionIssuedAt: null };
    await stores.devices.getOrCreate({ ...device, id: "d", userId: "u", orgId: "o" });
    const hour = 60 * 60 * 1000;
    const accessTokenHash = "a".repeat(64);
    await stores.sessions.create({
      id: "s",
      userId: "u",
      orgId: "o",
      deviceId: "d",
      accessTokenHash,
      accessExpiresAt: now + hour,
      refreshTokenHash: "r".repeat(64),
      refreshExpiresAt: now + hour,
      createdAt: now,
      revokedAt: null,
    });
    const { version } = await stores.browserPolicies.put("o", DEFAULT_BROWSER_POLICY);
    const perVariant: number[][] = variants.map(() => []);
    for (let round = -1; round < options.rounds; round++) {
      for (const [index, { stores: s }] of opened.entries()) {
        let requests = 0;
        const until = performance.now() + options.roundMs;
        const loop = async () => {
          while (performance.now() < until) {
            const access = await s.browserAccess.resolve(accessTokenHash, "o", version, now);
            if (access?.isMember !== true) throw new Error("the bench's session did not resolve");
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
      `The per-request read on PostgreSQL (BrowserAccessStore.resolve), in process, ${options.concurrency} concurrent request loops, ${options.rounds} rounds of ${options.roundMs} ms per variant (round-robin); reads per second, median (min–max) of the rounds`,
      "",
      "| Variant | reads/s | vs unnamed, pool 10 |",
      "|---|---|---|",
      ...variants.map((v, i) => {
        const runs = perVariant[i]!;
        return `| ${v.name} | ${fmt(median(runs))} (${fmt(Math.min(...runs))}–${fmt(Math.max(...runs))}) | ×${fmt(median(runs) / base, 2)} |`;
      }),
    ].join("\n");
  } finally {
    // Everything is closed before the database is dropped, whatever failed, and a failure is said.
    const closed = await Promise.allSettled([...opened.map((o) => o.close()), ...embedderPools.map((pool) => pool.end())]);
    await scratch.drop();
    for (const result of closed) if (result.status === "rejected") log(`  closing a variant failed: ${String(result.reason)}`);
  }
}
