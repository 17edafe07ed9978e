/**
 * Per-call cost, in process, of the steps every check-url request pays, on the bench's SQLite
 * fixture through the same stores the server uses: the bearer lookup (authenticate), the
 * membership lookup, the policy read, the URL decision. Next to them, the session query as a
 * statement prepared once, which is what the SQL layer costs without re-preparing each query.
 */
import { checkUrl, compileAccessControl } from "@gatehouse/core";
import { createHash } from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import { benchEngine } from "./engine.ts";
import type { Fixture } from "./fixture.ts";
import { median } from "./stats.ts";

export interface LookupCost {
  readonly name: string;
  /** Median over rounds of the mean per call, microseconds. */
  readonly us: number;
}

export interface LookupCosts {
  readonly calls: number;
  readonly bearerUs: number;
  readonly policyUs: number;
  readonly rows: LookupCost[];
}

export async function measureLookups(databaseUrl: string, fixture: Fixture, calls: number, rounds = 3): Promise<LookupCosts> {
  const engine = await benchEngine(databaseUrl);
  const rows: LookupCost[] = [];
  try {
    const { gatehouse, storage } = engine;
    const { stores } = storage;
    const principal = await gatehouse.authenticate(fixture.accessToken);
    const stored = await stores.browserPolicies.get(fixture.orgNoMfa);
    if (stored === null) throw new Error("the bench org has no policy");
    const compiled = compileAccessControl(stored.policy.accessControl);
    const url = fixture.checkUrls[0]!;
    const time = async (name: string, call: () => unknown): Promise<number> => {
      for (let i = 0; i < Math.min(calls, 500); i++) await call();
      const means: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const start = performance.now();
        for (let i = 0; i < calls; i++) await call();
        means.push(((performance.now() - start) * 1000) / calls);
      }
      const us = median(means);
      rows.push({ name, us });
      return us;
    };
    const bearerUs = await time("bearer lookup: gatehouse.authenticate(token) (SHA-256 + session query)", () => gatehouse.authenticate(fixture.accessToken));
    await time("membership lookup: stores.orgs.findMembership", () => stores.orgs.findMembership(fixture.orgNoMfa, principal.userId));
    const policyUs = await time(`policy read: stores.browserPolicies.version (the version check every request makes)`, () =>
      stores.browserPolicies.version(fixture.orgNoMfa),
    );
    await time(`for comparison: stores.browserPolicies.get (query + JSON.parse of the whole stored policy, as on a version change)`, () =>
      stores.browserPolicies.get(fixture.orgNoMfa),
    );
    await time("URL decision: checkUrl(compiled, url)", () => checkUrl(compiled, url));
    await time("whole use case: gatehouse.checkUrlAccess (membership + policy read + decision)", () =>
      gatehouse.checkUrlAccess(principal, fixture.orgNoMfa, url),
    );
    if (storage.kind === "sqlite") {
      // The session query as SQLite runs it when the statement is prepared once (the schema's own column names).
      const raw = new BetterSqlite3(databaseUrl, { readonly: true });
      try {
        const tokenHash = createHash("sha256").update(fixture.accessToken).digest("hex");
        const statement = raw.prepare("SELECT * FROM sessions WHERE access_token_hash = ? AND revoked_at IS NULL AND access_expires_at > ?");
        await time("for comparison: the session query on better-sqlite3 alone, statement prepared once (the floor under the bearer lookup)", () =>
          statement.get(tokenHash, Date.now()),
        );
        await time("for comparison: the same query, prepared on every call (kysely's SqliteDriver without the adapter's statement cache)", () =>
          raw.prepare("SELECT * FROM sessions WHERE access_token_hash = ? AND revoked_at IS NULL AND access_expires_at > ?").get(tokenHash, Date.now()),
        );
      } catch {
        // schema changed: the comparison rows are optional
      } finally {
        raw.close();
      }
    }
    return { calls, bearerUs, policyUs, rows };
  } finally {
    await engine.close();
  }
}
