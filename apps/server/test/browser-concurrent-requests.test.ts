/**
 * Browser requests that arrive together, on SQLite and PostgreSQL: each is answered for its own token and org.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientsFor, type Clients } from "./support/clients.ts";
import { onPostgres, PG_URL, requirePostgresInCi } from "./support/postgres.ts";
import { DEV_ENV, runCli, seedOrgAndMember, startServerProcess, tempSqliteDatabase, type ServerProcess } from "./support/server-process.ts";

const PASSWORD = "correct horse battery";
const POLICY = {
  access_control: { allowed_domains: ["docs.example.com"], blocked_domains: [], default_action: "deny", wildcard_supported: true },
  action_restrictions: { allowed_actions: ["navigate"], read_only_mode: false },
};
const OTHER_POLICY = { ...POLICY, access_control: { ...POLICY.access_control, allowed_domains: ["other.example"] } };

const postgresReachable = (await requirePostgresInCi("browser requests sent together on PostgreSQL")) === null;

interface Backend {
  readonly name: string;
  readonly available: boolean;
  /** Returns the DATABASE_URL and how to dispose of the database. */
  create(): Promise<{ databaseUrl: string; dispose(): Promise<void> }>;
}

const BACKENDS: readonly Backend[] = [
  {
    name: "SQLite",
    available: true,
    async create() {
      const db = tempSqliteDatabase();
      return { databaseUrl: db.databaseUrl, dispose: async () => db.dispose() };
    },
  },
  {
    name: "PostgreSQL",
    available: postgresReachable,
    async create() {
      const database = `gh_together_${randomBytes(6).toString("hex")}`;
      await onPostgres((client) => client.query(`create database ${database}`));
      const databaseUrl = Object.assign(new URL(PG_URL), { pathname: `/${database}` }).toString();
      return { databaseUrl, dispose: () => onPostgres((client) => client.query(`drop database if exists ${database} with (force)`)).then(() => {}) };
    },
  },
];

describe.each(BACKENDS.filter((backend) => backend.available))("browser requests sent together on $name", (backend) => {
  let database: { databaseUrl: string; dispose(): Promise<void> };
  let server: ServerProcess;
  let api: Clients;
  let orgId: string;
  let accessToken: string;
  let otherOrgId: string;
  let otherAccessToken: string;

  beforeAll(async () => {
    database = await backend.create();
    const env = { ...DEV_ENV, DATABASE_URL: database.databaseUrl };
    ({ orgId } = await seedOrgAndMember(env, "ada@example.com", PASSWORD));
    expect((await runCli(["policy", "set", orgId, "--json", JSON.stringify(POLICY)], env)).status).toBe(0);
    expect((await runCli(["org", "settings", orgId, "--json", '{"require_mfa_new_device": false, "require_mfa_untrusted_device": false}'], env)).status).toBe(
      0,
    );
    const other = await runCli(["org", "create", "Babbage"], env);
    otherOrgId = String(other.json.org_id);
    expect((await runCli(["user", "create", "grace@example.com", "--password-stdin"], env, `${PASSWORD}\n`)).status).toBe(0);
    expect((await runCli(["member", "add", otherOrgId, "grace@example.com", "--role", "member"], env)).status).toBe(0);
    expect((await runCli(["policy", "set", otherOrgId, "--json", JSON.stringify(OTHER_POLICY)], env)).status).toBe(0);
    expect(
      (await runCli(["org", "settings", otherOrgId, "--json", '{"require_mfa_new_device": false, "require_mfa_untrusted_device": false}'], env)).status,
    ).toBe(0);
    server = await startServerProcess(env);
    api = clientsFor(server.url);
    const tokensOf = async (email: string, org: string) => {
      const outcome = await api.auth.login({ email, password: PASSWORD, orgId: org });
      if (outcome.result.case !== "tokens") throw new Error("expected tokens");
      return outcome.result.value.accessToken;
    };
    accessToken = await tokensOf("ada@example.com", orgId);
    otherAccessToken = await tokensOf("grace@example.com", otherOrgId);
  });

  afterAll(async () => {
    await server?.stop();
    await database?.dispose();
  });

  it("answers check-urls sent together, two users of two orgs and their tokens crossed, each for its own token and org", async () => {
    const checkUrl = async (token: string, org: string) => {
      const response = await fetch(`${server.url}/api/browser/check-url`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ org_id: org, url: "https://docs.example.com/a" }),
      });
      const body = (await response.json()) as { allowed?: boolean };
      return response.status === 200 ? { status: 200, allowed: body.allowed } : { status: response.status };
    };
    const asked: [string, string, object][] = [
      [accessToken, orgId, { status: 200, allowed: true }],
      [otherAccessToken, otherOrgId, { status: 200, allowed: false }],
      [accessToken, otherOrgId, { status: 403 }],
      [otherAccessToken, orgId, { status: 403 }],
      [`gh_at_${"x".repeat(43)}`, orgId, { status: 401 }],
    ];
    const many = Array.from({ length: 60 }, (_, i) => asked[i % asked.length]!);
    expect(await Promise.all(many.map(([token, org]) => checkUrl(token, org)))).toEqual(many.map(([, , expected]) => expected));
  });
});
