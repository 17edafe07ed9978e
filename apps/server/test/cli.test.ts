/** The `gatehouse` command line as people use it: spawned, with its exit status, stdout and stderr. */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, REPO_ROOT, runCli, tempSqliteDatabase, type TestDatabase } from "./support/server-process.ts";

const PASSWORD = "correct horse battery";
/** The CLI's raw output, for what is not one JSON object (usage, version). */
function runRaw(args: string[]) {
  return spawnSync(process.execPath, ["--conditions=@gatehouse/source", BIN, ...args], { cwd: REPO_ROOT, encoding: "utf8" });
}

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "apps/server/package.json"), "utf8")) as { version: string };

describe("gatehouse CLI conventions", () => {
  let db: TestDatabase;
  let env: Record<string, string>;

  beforeAll(() => {
    db = tempSqliteDatabase();
    env = { DATABASE_URL: db.databaseUrl, PASSWORD_HASH_MEMORY_KIB: "1024", PASSWORD_HASH_PASSES: "1" };
  });

  afterAll(() => db?.dispose());

  it.each([["--help"], ["-h"], ["member", "add", "--help"]])("%s prints the usage on stdout and exits 0", (...args) => {
    const result = runRaw(args);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^usage: gatehouse <command>/);
    expect(result.stdout).toContain("member list <org_id>");
    expect(result.stderr).toBe("");
  });

  it.each([["--version"], ["-V"]])("%s prints the package version and exits 0", (flag) => {
    const result = runRaw([flag]);
    expect(result).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: "" });
  });

  it.each([
    [["org", "create", "Acme", "--frobnicate"], "gatehouse: Unknown option '--frobnicate'"],
    [["org", "create", "Acme", "Corp"], 'gatehouse: org create: unexpected argument "Corp" (usage: org create <name>)'],
    [["org", "list", "extra"], 'gatehouse: org list: unexpected argument "extra" (usage: org list)'],
    [["serve", "now"], 'gatehouse: serve: unexpected argument "now" (usage: serve)'],
    [["member", "add", "some-org"], "gatehouse: member add: missing <email> (usage: member add <org_id> <email>)"],
    [["member", "remove", "some-org", "ada@example.com", "--role", "admin"], "gatehouse: member remove does not take --role"],
    [["org", "frobnicate"], 'gatehouse: unknown command "org frobnicate" (gatehouse --help lists them)'],
    [["member", "add", "some-org", "ada@example.com", "--role", "owner"], 'gatehouse: error (invalid_argument): role: must be "member" or "admin"'],
  ])("refuses %j with one clear line on stderr", (args, line) => {
    const result = runCli(args, env);
    expect(result.stdout).toBe("");
    expect(
      result.stderr
        .trimEnd()
        .split("\n")
        .filter((l) => !l.startsWith("gatehouse: database ")),
    ).toEqual([line]);
    expect(result.status).toBe(line.includes("error (") ? 1 : 2);
  });

  it("names the database it uses on stderr, with a PostgreSQL password masked", () => {
    expect(runCli(["org", "list"], env).stderr).toBe(`gatehouse: database sqlite ${db.databaseUrl}\n`);
    const pg = runCli(["org", "list"], { DATABASE_URL: "postgres://gate:s3cret-pw@127.0.0.1:1/none?password=s3cret-pw" });
    expect(pg.status).toBe(1);
    expect(pg.stderr).toMatch(/^gatehouse: database postgres postgres:\/\/gate:\*\*\*@127\.0\.0\.1:1\/none\?password=\*\*\*\n/);
    expect(pg.stderr).not.toContain("s3cret-pw");
  });

  it("prints a configuration error once, for a command and for serve", () => {
    for (const args of [["org", "list"], ["serve"]]) {
      const result = runCli(args, { ...env, PORT: "99999", LOG_LEVEL: "loud" });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(
        'gatehouse: invalid configuration:\n  - LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent\n  - PORT must be a whole number from 0 to 65535 (got "99999")\n',
      );
    }
  });

  it("adds, lists and removes a member by org id and email; lists orgs", () => {
    const orgId = String(runCli(["org", "create", "Acme"], env).json.org_id);
    expect(runCli(["user", "create", "ada@example.com", "--password-stdin"], env, `${PASSWORD}\n`).status).toBe(0);
    const userId = String(runCli(["user", "create", "bob@example.com", "--password-stdin"], env, `${PASSWORD}\n`).json.user_id);
    expect(runCli(["member", "add", orgId, "ada@example.com", "--role", "admin"], env).status).toBe(0);
    expect(runCli(["member", "add", orgId, "bob@example.com"], env).status).toBe(0);

    const orgs = runCli(["org", "list"], env).json.orgs as { org_id: string; name: string }[];
    expect(orgs).toContainEqual(expect.objectContaining({ org_id: orgId, name: "Acme" }));
    const members = runCli(["member", "list", orgId], env).json.members as { email: string; role: string }[];
    expect(members.map(({ email, role }) => [email, role]).sort()).toEqual([
      ["ada@example.com", "admin"],
      ["bob@example.com", "member"],
    ]);

    expect(runCli(["member", "remove", orgId, "Bob@Example.com"], env).json).toEqual({ removed: true });
    expect(runCli(["member", "list", orgId], env).json.members).toEqual([expect.objectContaining({ email: "ada@example.com" })]);
    const again = runCli(["member", "remove", orgId, "bob@example.com"], env);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("error (not_found): membership not found");
    expect(userId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
