/** `gatehouse audit list`: the audit trail as JSON lines, with the filters of ListAuditEvents. */
import { userInfo } from "node:os";
import { openSqliteStores } from "@gatehouse/adapters-sqlite";
import type { AuditEvent } from "@gatehouse/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, tempSqliteDatabase, type TestDatabase } from "./support/server-process.ts";

const PASSWORD = "correct horse battery";
/** Later than anything the commands below record themselves, so the seeded events are all that `--since T` lists. */
const T = Date.UTC(2030, 0, 1);

function anEvent(id: string, at: number, orgId: string, overrides: Partial<Omit<AuditEvent, "kind" | "payload">> = {}): AuditEvent {
  return {
    id,
    at,
    kind: "sign_in.failed",
    actor: { kind: "anonymous" },
    orgId,
    userId: null,
    deviceId: null,
    clientIp: "203.0.113.7",
    userAgent: "curl/8.5.0",
    payload: { reason: "wrong_password" },
    ...overrides,
  };
}

describe("gatehouse audit list", () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let adaId: string;
  let acme: string;
  let globex: string;
  let bulk: string;

  beforeAll(async () => {
    db = tempSqliteDatabase();
    env = { DATABASE_URL: db.databaseUrl, PASSWORD_HASH_MEMORY_KIB: "1024", PASSWORD_HASH_PASSES: "1" };
    adaId = String((await runCli(["user", "create", "ada@example.com", "--password-stdin"], env, `${PASSWORD}\n`)).json.user_id);
    const orgIds: string[] = [];
    for (const name of ["Acme", "Globex", "Bulk"]) orgIds.push(String((await runCli(["org", "create", name], env)).json.org_id));
    [acme, globex, bulk] = orgIds as [string, string, string];
    const opened = await openSqliteStores({ filename: db.databaseUrl });
    const events: AuditEvent[] = [
      anEvent("e1", T, acme, { userId: adaId }),
      {
        ...anEvent("e2", T + 1000, acme, { actor: { kind: "system" }, userId: adaId, clientIp: null, userAgent: null }),
        kind: "member.added",
        payload: { role: "admin" },
      },
      anEvent("e3", T + 2000, globex),
      {
        ...anEvent("e4", T + 3000, acme, { actor: { kind: "user", userId: adaId }, userId: adaId, deviceId: "d1" }),
        kind: "otp.sent",
        payload: { challengeId: "c1", phoneMask: "+*******4567" },
      },
    ];
    for (let i = 0; i < 520; i++) events.push(anEvent(`bulk-${String(i).padStart(3, "0")}`, T + 10_000, bulk));
    for (const event of events) await opened.stores.audit.append(event);
    await opened.close();
  });

  afterAll(() => db?.dispose());

  const ids = async (args: string[]) => {
    const result = await runCli(["audit", "list", ...args], env);
    expect(result.stderr.split("\n").filter((line) => line !== "" && !line.startsWith("gatehouse: database "))).toEqual([]);
    expect(result.status).toBe(0);
    return result.lines.map((line) => line.id);
  };

  it("prints one JSON object per event, newest first, snake_case with ISO times and a masked phone", async () => {
    const result = await runCli(["audit", "list", "--org", acme, "--since", new Date(T).toISOString()], env);
    expect(result.status).toBe(0);
    expect(result.stdout.split("\n")).toHaveLength(4);
    expect(result.lines).toEqual([
      {
        id: "e4",
        at: "2030-01-01T00:00:03.000Z",
        kind: "otp.sent",
        actor: { kind: "user", user_id: adaId },
        org_id: acme,
        user_id: adaId,
        device_id: "d1",
        client_ip: "203.0.113.7",
        user_agent: "curl/8.5.0",
        payload: { challenge_id: "c1", phone_mask: "+*******4567" },
      },
      expect.objectContaining({ id: "e2", actor: { kind: "system" }, client_ip: null, payload: { role: "admin" } }),
      expect.objectContaining({ id: "e1", actor: { kind: "anonymous" }, payload: { reason: "wrong_password" } }),
    ]);
  });

  it.each<[string, string[], string[]]>([
    ["--user by email, in any spelling", ["--user", "ADA@example.com", "--since", "2030-01-01"], ["e4", "e2", "e1"]],
    ["--kind, repeated", ["--kind", "otp.sent", "--kind", "member.added"], ["e4", "e2"]],
    ["--since (inclusive) and --until (exclusive)", ["--since", "2030-01-01T00:00:01Z", "--until", "2030-01-01T00:00:03Z"], ["e3", "e2"]],
    ["--until as a date (midnight UTC)", ["--until", "2030-01-01", "--kind", "otp.sent", "--user", "ada@example.com"], []],
    ["--limit", ["--since", "2030-01-01", "--limit", "2"], ["bulk-519", "bulk-518"]],
    ["a kind no event has", ["--kind", "phone.verified", "--since", "2030-01-01"], []],
  ])("filters by %s", async (_case, args, expected) => {
    expect(await ids(args)).toEqual(expected);
  });

  it("--user by id filters like the email", async () => {
    expect(await ids(["--user", adaId, "--since", "2030-01-01"])).toEqual(["e4", "e2", "e1"]);
  });

  it("follows the cursor past the largest page: every event once, or exactly --limit of them", async () => {
    const all = await ids(["--org", bulk]);
    expect(all).toHaveLength(520);
    expect(new Set(all).size).toBe(520);
    expect(all[0]).toBe("bulk-519");
    expect(await ids(["--org", bulk, "--limit", "510"])).toEqual(all.slice(0, 510));
  });

  it.each([
    [["--since", "yesterday"], 2, "gatehouse: --since must be an ISO 8601 date or time with a zone, such as 2026-11-01 or 2026-11-01T12:00:00Z"],
    [["--until", "2030-01-01T00:00:00"], 2, "gatehouse: --until must be an ISO 8601 date or time with a zone, such as 2026-11-01 or 2026-11-01T12:00:00Z"],
    [["--limit", "0"], 2, "gatehouse: --limit must be a whole number of events ≥ 1"],
    [["--json", "{}"], 2, "gatehouse: audit list does not take --json"],
    [["--kind", "sign_in.maybe"], 1, 'gatehouse: error (invalid_argument): kinds: "sign_in.maybe" is not an event kind'],
    [["--user", "nobody@example.com"], 1, "gatehouse: error (not_found): no user with this email"],
    [["--org", "org-unknown-but-well-formed"], 1, "gatehouse: error (not_found): organization not found"],
  ])("refuses %j with one line on stderr (exit %i)", async (args, status, line) => {
    const result = await runCli(["audit", "list", ...args], env);
    expect(result.status).toBe(status);
    expect(result.stdout).toBe("");
    const [reported] = result.stderr.split("\n").filter((l) => !l.startsWith("gatehouse: database "));
    expect(reported!.slice(0, line.length)).toBe(line);
  });
});

describe("the CLI names its operator in the audit trail", () => {
  it("records --actor, else the OS user, as the system actor's operator; refuses an empty or overlong one", async () => {
    const db = tempSqliteDatabase();
    try {
      const env = { DATABASE_URL: db.databaseUrl, PASSWORD_HASH_MEMORY_KIB: "1024", PASSWORD_HASH_PASSES: "1" };
      const orgId = String((await runCli(["org", "create", "Initech"], env)).json.org_id);
      await runCli(["org", "settings", orgId, "--json", '{"trust_ttl_days": 7}', "--actor", "alice (ticket 42)"], env);
      await runCli(["org", "settings", orgId, "--json", '{"trust_ttl_days": 8}'], env);
      const lines = (await runCli(["audit", "list", "--org", orgId, "--kind", "org_mfa_settings.changed"], env)).lines as { actor: unknown }[];
      // Newest first.
      expect(lines.map((line) => line.actor)).toEqual([
        { kind: "system", operator: userInfo().username },
        { kind: "system", operator: "alice (ticket 42)" },
      ]);
      for (const actor of ["", " ", "x".repeat(65)]) {
        const refused = await runCli(["org", "list", "--actor", actor], env);
        expect([refused.status, refused.stderr], JSON.stringify(actor)).toEqual([2, expect.stringContaining("--actor must be 1 to 64 printable characters")]);
      }
    } finally {
      db.dispose();
    }
  });
});
