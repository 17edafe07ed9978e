/** `gatehouse risk policy get|set` and `gatehouse risk events`, on an SQLite database. */
import { openSqliteStores } from "@gatehouse/adapters-sqlite";
import type { RiskEvent } from "@gatehouse/core";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, runCliRaw, tempSqliteDatabase, type TestDatabase } from "./support/server-process.ts";

const PASSWORD = "correct horse battery";
const T = Date.UTC(2030, 0, 1);

function anEvent(id: string, at: number, orgId: string, userId: string): RiskEvent {
  const observation = {
    at,
    ip: "193.0.0.1",
    country: "NL",
    asn: null,
    location: null,
    userAgent: "UA",
    browser: "Firefox 140",
    os: "Linux",
    deviceType: "desktop",
    rttMs: null,
  };
  return {
    id,
    orgId,
    userId,
    at,
    mode: "enforce",
    decision: "block",
    applied: "block",
    score: 0.301,
    signals: [{ signal: "country", value: "NL", userSeen: 0, userTotal: 1, platformSeen: 0, contribution: 0.301, code: "new_country" }],
    rules: [{ code: "country_not_allowed", decision: "block", detail: "country NL is outside US" }],
    observation,
    previous: { ...observation, at: at - 60_000, ip: "8.8.8.8", country: "US" },
  };
}

describe("gatehouse risk", () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let adaId: string;
  let acme: string;

  beforeAll(async () => {
    db = tempSqliteDatabase();
    env = { DATABASE_URL: db.databaseUrl, PASSWORD_HASH_MEMORY_KIB: "1024", PASSWORD_HASH_PASSES: "1" };
    adaId = String((await runCli(["user", "create", "ada@example.com", "--password-stdin"], env, `${PASSWORD}\n`)).json.user_id);
    const graceId = String((await runCli(["user", "create", "grace@example.com", "--password-stdin"], env, `${PASSWORD}\n`)).json.user_id);
    acme = String((await runCli(["org", "create", "Acme"], env)).json.org_id);
    const opened = await openSqliteStores({ filename: db.databaseUrl });
    await opened.stores.risk.appendEvent(anEvent("e1", T, acme, adaId));
    await opened.stores.risk.appendEvent(anEvent("e2", T + 1000, acme, adaId));
    await opened.stores.risk.appendEvent(anEvent("e3", T + 2000, acme, graceId));
    await opened.close();
  });

  afterAll(() => db?.dispose());

  it("policy get: the default (audit) until one is set; set: the fields given over the current ones, as stored", async () => {
    expect((await runCli(["risk", "policy", "get", acme], env)).json).toMatchObject({ mode: "audit", thresholds: { mfa: 2 }, allowed_countries: [] });
    const set = await runCli(["risk", "policy", "set", acme, "--json", '{"mode": "enforce", "allowed_countries": ["us"]}'], env);
    expect(set.json).toMatchObject({ mode: "enforce", allowed_countries: ["US"], thresholds: { mfa: 2, phishing_resistant: null, block: null } });
    const again = await runCli(["risk", "policy", "set", acme, "--json", '{"thresholds": {"mfa": 1.5}}'], env);
    expect(again.json).toMatchObject({ mode: "enforce", allowed_countries: ["US"], thresholds: { mfa: 1.5 } });
    expect((await runCli(["risk", "policy", "get", acme], env)).json).toEqual(again.json);
  });

  it("policy set refuses an invalid policy whole, naming each fault, and keeps the stored one", async () => {
    const refused = await runCliRaw(["risk", "policy", "set", acme, "--json", '{"mode": "loud", "allowed_countries": ["USA"], "colour": 1}'], env);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("unknown field colour");
    expect(refused.stderr).toContain("mode must be");
    expect(refused.stderr).toContain("allowed_countries must be");
    expect((await runCliRaw(["risk", "policy", "set", acme, "--json", "{nope"], env)).status).toBe(2);
    expect((await runCli(["risk", "policy", "get", acme], env)).json).toMatchObject({ mode: "enforce" });
  });

  it("events --user EMAIL: one JSON object a line, newest first, with the decision and each signal's assessment", async () => {
    const listed = await runCliRaw(["risk", "events", "--user", "ada@example.com"], env);
    expect(listed.status).toBe(0);
    const lines = listed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.id)).toEqual(["e2", "e1"]);
    expect(lines[0]).toMatchObject({
      at: new Date(T + 1000).toISOString(),
      org_id: acme,
      user_id: adaId,
      decision: "block",
      applied: "block",
      signals: [{ signal: "country", value: "NL", user_seen: 0, user_total: 1, platform_seen: 0, contribution: 0.301, code: "new_country" }],
      rules: [{ code: "country_not_allowed", decision: "block" }],
      sign_in: { ip: "193.0.0.1", country: "NL", browser: "Firefox 140" },
      previous: { ip: "8.8.8.8", country: "US" },
    });
    const all = await runCliRaw(["risk", "events", "--org", acme, "--limit", "1"], env);
    expect(
      all.stdout
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ).toEqual(["e3"]);
  });

  it("replay --since --policy: a summary line, then each event the candidate steps up or blocks, newest first; nothing changes", async () => {
    const lines = (stdout: string) =>
      stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const candidate = join(dirname(db.databaseUrl), "candidate.json");
    // No geo-fence (the stored events were blocked by one) and a threshold under their score.
    writeFileSync(candidate, '{"mode": "enforce", "thresholds": {"mfa": 0.3}}');
    const replayed = await runCliRaw(["risk", "replay", "--since", "30d", "--policy", candidate], env);
    expect(replayed.status).toBe(0);
    const [summary, ...events] = lines(replayed.stdout);
    expect(summary).toMatchObject({
      summary: { events: 3, decisions: { allow: 0, mfa: 3, block: 0 }, recorded: { block: 3 }, raised: 0, lowered: 3, truncated: false },
      policy: { mode: "enforce", thresholds: { mfa: 0.3 }, allowed_countries: [] },
    });
    expect(events.map((event) => event.id)).toEqual(["e3", "e2", "e1"]);
    expect(events[1]).toMatchObject({ org_id: acme, user_id: adaId, recorded: "block", decision: "mfa", score: 0.301, rules: [], sign_in: { country: "NL" } });

    writeFileSync(candidate, '{"allowed_countries": ["NL"]}');
    const since = new Date(T + 1500).toISOString();
    const fenced = await runCliRaw(["risk", "replay", "--since", since, "--org", acme, "--policy", candidate], env);
    expect(lines(fenced.stdout)).toEqual([
      expect.objectContaining({ summary: expect.objectContaining({ events: 1, decisions: expect.objectContaining({ allow: 1 }) }) }),
    ]);

    expect((await runCliRaw(["risk", "replay", "--since", "30d"], env)).status).toBe(2);
    expect((await runCliRaw(["risk", "replay", "--since", "soon", "--policy", candidate], env)).status).toBe(2);
    expect((await runCli(["risk", "policy", "get", acme], env)).json).toMatchObject({ mode: "enforce", allowed_countries: ["US"] });
  });
});
