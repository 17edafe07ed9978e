/** `gatehouse sms policy` and `gatehouse sms report`: the SMS destination policy and the traffic report from the command line. */
import { openSqliteStores } from "@gatehouse/adapters-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, tempSqliteDatabase, type TestDatabase } from "./support/server-process.ts";

const T = Date.UTC(2030, 0, 1, 12);

describe("gatehouse sms", () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let orgId: string;

  beforeAll(async () => {
    db = tempSqliteDatabase();
    env = { DATABASE_URL: db.databaseUrl };
    const org = await runCli(["org", "create", "Acme"], env);
    expect(org.status).toBe(0);
    orgId = String(org.json.org_id);
    const opened = await openSqliteStores({ filename: db.databaseUrl });
    await opened.stores.smsTraffic.add(["country:GB", "prefix:+44790012"], T, 8, 0);
    await opened.stores.smsTraffic.add(["country:FR", "prefix:+336123"], T, 4, 3);
    await opened.close();
  });

  afterAll(() => db?.dispose());

  it("sms policy shows and changes the platform's policy, and an org's", async () => {
    expect((await runCli(["sms", "policy"], env)).json).toMatchObject({
      org_id: null,
      allowed_countries: [],
      refused_countries: expect.arrayContaining(["SO", "LV"]),
    });
    const platform = await runCli(
      ["sms", "policy", "--json", '{"allowed_countries": ["US", "GB"], "refused_countries": ["SO"], "refused_number_types": ["premium_rate"]}'],
      env,
    );
    expect(platform.json).toEqual({ org_id: null, allowed_countries: ["GB", "US"], refused_countries: ["SO"], refused_number_types: ["premium_rate"] });
    const org = await runCli(["sms", "policy", "--org", orgId, "--json", '{"allowed_countries": ["GB"]}'], env);
    expect(org.json).toEqual({ org_id: orgId, allowed_countries: ["GB"], refused_countries: ["SO"], refused_number_types: ["premium_rate"] });
    const audit = await runCli(["audit", "list", "--kind", "sms_destination_policy.changed"], env);
    expect(audit.lines).toHaveLength(2);
  });

  it("sms policy refuses an unknown key, a wrong type and an unknown region, naming each", async () => {
    const unknownKey = await runCli(["sms", "policy", "--json", '{"countries": ["US"]}'], env);
    expect([unknownKey.status, unknownKey.stderr]).toEqual([1, expect.stringContaining("policy.countries: unknown key")]);
    const wrongType = await runCli(["sms", "policy", "--json", '{"allowed_countries": "US"}'], env);
    expect(wrongType.stderr).toContain("allowed_countries: must be a list of strings");
    const unknownRegion = await runCli(["sms", "policy", "--json", '{"allowed_countries": ["XX"]}'], env);
    expect(unknownRegion.stderr).toContain("allowed_countries: not ISO 3166-1 alpha-2 regions with phone numbers");
  });

  it("sms report lists sends, verifications and conversion by country and prefix over the period", async () => {
    const report = await runCli(["sms", "report", "--since", "2030-01-01", "--until", "2030-01-02"], env);
    expect(report.json).toEqual({
      rows: [
        { scope: "country", key: "FR", sent: 4, verified: 3, conversion: 0.75 },
        { scope: "country", key: "GB", sent: 8, verified: 0, conversion: 0 },
        { scope: "prefix", key: "+336123", sent: 4, verified: 3, conversion: 0.75 },
        { scope: "prefix", key: "+44790012", sent: 8, verified: 0, conversion: 0 },
      ],
    });
    expect((await runCli(["sms", "report", "--since", "2030-01-02", "--until", "2030-01-03"], env)).json).toEqual({ rows: [] });
    const missing = await runCli(["sms", "report"], env);
    expect([missing.status, missing.stderr]).toEqual([2, expect.stringContaining("gatehouse: sms report needs --since <iso>\n")]);
  });
});
