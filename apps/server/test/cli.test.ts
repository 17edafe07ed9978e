/**
 * The `gatehouse` command line as people use it: its exit status, stdout and stderr. Its `main` runs in
 * process; the bin is spawned where the status the process exits with, or `serve`, is the point.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, runCliProcessRaw, runCliRaw, tempSqliteDatabase, type TestDatabase } from "./support/server-process.ts";

const PASSWORD = "correct horse battery";
/** The CLI's raw output in the test's own environment, for what is not one JSON object (usage, version). */
const runRaw = (args: string[]) => runCliRaw(args, {});

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "apps/server/package.json"), "utf8")) as { version: string };

describe("gatehouse CLI conventions", () => {
  let db: TestDatabase;
  let env: Record<string, string>;

  beforeAll(() => {
    db = tempSqliteDatabase();
    env = { DATABASE_URL: db.databaseUrl, PASSWORD_HASH_MEMORY_KIB: "1024", PASSWORD_HASH_PASSES: "1" };
  });

  afterAll(() => db?.dispose());

  it.each([["--help"], ["-h"], ["help"]])("%s prints the usage of every command on stdout and exits 0", async (...args) => {
    const result = await runRaw(args);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^usage: gatehouse <command>/);
    for (const command of ["member list <org>", "user show <user>", "session revoke <user> [--org <org>]", "device list <user>", "device revoke <device_id>"]) {
      expect(result.stdout).toContain(command);
    }
    expect(result.stderr).toBe("");
  });

  it.each([[["member", "add", "--help"]], [["help", "member", "add"]]])("%j prints that command's help: every option and the output's keys", async (args) => {
    const result = await runRaw(args);
    expect(result).toMatchObject({ status: 0, stderr: "" });
    expect(result.stdout.split("\n")).toEqual([
      "usage: gatehouse member add <org> <email> [--role member|admin]",
      '  add a verified account to the org, or email an invitation ("status": "invited")',
      "  <org>  the organization's id or slug",
      "  <email>  the account's email",
      "options:",
      "  --role member|admin  the role (default: member)",
      'output: added: {"status": "added", "org_id", "user_id", "role"}; invited: {"status": "invited", "org_id", "invitation_id", "email", "role"}',
      "",
    ]);
  });

  it("names the keys --json accepts and a required option without brackets", async () => {
    const settings = (await runRaw(["org", "settings", "--help"])).stdout;
    expect(settings).toContain(
      '"require_mfa_new_device": bool, "require_mfa_untrusted_device": bool, "trust_device_after_mfa": bool, "trust_ttl_days": 0-3650',
    );
    expect((await runRaw(["policy", "set", "--help"])).stdout).toMatch(/^usage: gatehouse policy set <org> --json '\{\.\.\.\}'\n/);
    expect((await runRaw(["platform", "settings", "--help"])).stdout).toContain('"mfa_always": bool');
  });

  it("docs/cli.md has a section for every command, with its synopsis as the help prints it", async () => {
    const docs = readFileSync(join(REPO_ROOT, "docs/cli.md"), "utf8");
    const synopses = (await runRaw(["help"])).stdout
      .split("\n")
      .filter((line) => /^ {2}[a-z]/.test(line) && !line.startsWith("  help "))
      .map((line) => line.trim());
    expect(synopses.length).toBeGreaterThan(20);
    for (const synopsis of synopses) expect(docs, synopsis).toContain(`usage: gatehouse ${synopsis}\n`);
  });

  it("prints the help of a group's commands for `<group> --help`", async () => {
    const result = await runRaw(["device", "--help"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("usage: gatehouse device list <user> [--org <org>]");
    expect(result.stdout).toContain("usage: gatehouse device revoke <device_id>");
  });

  it.each([[["frobnicate", "--help"]], [["help", "frobnicate"]], [["help", "org", "frobnicate"]], [["frobnicate"]]])(
    "exits 2 for help on or a run of an unknown command: %j",
    (args) => {
      const result = runCliProcessRaw(args, {});
      expect(result.status).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^gatehouse: unknown command "[a-z ]+" \(gatehouse help lists them\)\n$/);
    },
  );

  it.each([["--version"], ["-V"]])("%s prints the package version and exits 0", (flag) => {
    const result = runCliProcessRaw([flag], {});
    expect(result).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: "" });
  });

  it.each([
    [["org", "create", "Acme", "--frobnicate"], "gatehouse: Unknown option '--frobnicate'"],
    [["org", "create", "Acme", "Corp"], 'gatehouse: org create: unexpected argument "Corp" (usage: org create <name>)'],
    [["session", "revoke"], "gatehouse: session revoke: missing <user> (usage: session revoke <user>)"],
    [["device", "revoke", "d1", "--org", "acme"], "gatehouse: device revoke does not take --org"],
    [["user", "show", "nobody@example.com"], "gatehouse: error (not_found): user not found"],
    [["device", "revoke", "no-such-device"], "gatehouse: error (not_found): device not found"],
    [["member", "list", "no-such-org"], "gatehouse: error (not_found): organization not found"],
    [["session", "revoke", "nobody@example.com", "--org", "no-such-org"], "gatehouse: error (not_found): user not found"],
    [["org", "list", "extra"], 'gatehouse: org list: unexpected argument "extra" (usage: org list)'],
    [["serve", "now"], 'gatehouse: serve: unexpected argument "now" (usage: serve)'],
    [["member", "add", "some-org"], "gatehouse: member add: missing <email> (usage: member add <org> <email>)"],
    [["member", "remove", "some-org", "ada@example.com", "--role", "admin"], "gatehouse: member remove does not take --role"],
    [["org", "frobnicate"], 'gatehouse: unknown command "org frobnicate" (gatehouse help lists them)'],
    [["member", "add", "some-org", "ada@example.com", "--role", "owner"], 'gatehouse: error (invalid_argument): role: must be "member" or "admin"'],
  ])("refuses %j with one clear line on stderr", async (args, line) => {
    const result = await runCli(args, env);
    expect(result.stdout).toBe("");
    expect(
      result.stderr
        .trimEnd()
        .split("\n")
        .filter((l) => !l.startsWith("gatehouse: database ")),
    ).toEqual([line]);
    expect(result.status).toBe(line.includes("error (") ? 1 : 2);
  });

  it("names the database it uses on stderr, with a PostgreSQL password masked", async () => {
    expect((await runCli(["org", "list"], env)).stderr).toBe(`gatehouse: database sqlite ${db.databaseUrl}\n`);
    const pg = await runCli(["org", "list"], { DATABASE_URL: "postgres://gate:s3cret-pw@127.0.0.1:1/none?password=s3cret-pw" });
    expect(pg.status).toBe(1);
    expect(pg.stderr).toMatch(/^gatehouse: database postgres postgres:\/\/gate:\*\*\*@127\.0\.0\.1:1\/none\?password=\*\*\*\n/);
    expect(pg.stderr).not.toContain("s3cret-pw");
  });

  it("prints a configuration error once: as text for a command, as one JSON log line for serve", () => {
    const problems = ["LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent", 'PORT must be a whole number from 0 to 65535 (got "99999")'];
    const command = runCliProcessRaw(["org", "list"], { ...env, PORT: "99999", LOG_LEVEL: "loud" });
    expect([command.status, command.stdout]).toEqual([1, ""]);
    expect(command.stderr).toBe(`gatehouse: invalid configuration:\n  - ${problems.join("\n  - ")}\n`);

    const serve = runCliProcessRaw(["serve"], { ...env, PORT: "99999", LOG_LEVEL: "loud" });
    expect([serve.status, serve.stdout]).toEqual([1, ""]);
    const lines = serve.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "fatal", service: "gatehouse", msg: "invalid configuration: gatehouse refuses to start", problems });
  });

  it("takes an org's slug, in any case, wherever it takes an org id; org list shows the slug", async () => {
    const orgId = String((await runCli(["org", "create", "Initech", "--slug", "initech"], env)).json.org_id);
    expect((await runCli(["user", "create", "peter@example.com", "--password-stdin"], env, `${PASSWORD}\n`)).status).toBe(0);
    expect((await runCli(["member", "add", "initech", "peter@example.com"], env)).json).toMatchObject({ status: "added", org_id: orgId });
    expect((await runCli(["member", "list", "Initech"], env)).json.members).toEqual([expect.objectContaining({ email: "peter@example.com" })]);
    expect((await runCli(["org", "settings", "initech", "--json", '{"trust_ttl_days": 7}'], env)).json).toMatchObject({ trust_ttl_days: 7 });
    expect((await runCli(["org", "settings", orgId], env)).json).toMatchObject({ trust_ttl_days: 7 });
    expect((await runCli(["policy", "get", "initech"], env)).status).toBe(0);
    expect((await runCli(["audit", "list", "--org", "initech", "--kind", "member.added"], env)).lines).toEqual([
      expect.objectContaining({ kind: "member.added", org_id: orgId }),
    ]);
    expect((await runCli(["org", "list"], env)).json.orgs).toContainEqual(expect.objectContaining({ org_id: orgId, slug: "initech", name: "Initech" }));
    expect((await runCli(["member", "remove", "INITECH", "peter@example.com"], env)).json).toEqual({ removed: true });
  });

  it("adds, lists and removes a member by org id and email; lists orgs", async () => {
    const orgId = String((await runCli(["org", "create", "Acme"], env)).json.org_id);
    expect((await runCli(["user", "create", "ada@example.com", "--password-stdin"], env, `${PASSWORD}\n`)).status).toBe(0);
    const userId = String((await runCli(["user", "create", "bob@example.com", "--password-stdin"], env, `${PASSWORD}\n`)).json.user_id);
    expect((await runCli(["member", "add", orgId, "ada@example.com", "--role", "admin"], env)).status).toBe(0);
    expect((await runCli(["member", "add", orgId, "bob@example.com"], env)).status).toBe(0);

    const orgs = (await runCli(["org", "list"], env)).json.orgs as { org_id: string; name: string }[];
    expect(orgs).toContainEqual(expect.objectContaining({ org_id: orgId, name: "Acme" }));
    const members = (await runCli(["member", "list", orgId], env)).json.members as { email: string; role: string }[];
    expect(members.map(({ email, role }) => [email, role]).sort()).toEqual([
      ["ada@example.com", "admin"],
      ["bob@example.com", "member"],
    ]);

    expect((await runCli(["member", "remove", orgId, "Bob@Example.com"], env)).json).toEqual({ removed: true });
    expect((await runCli(["member", "list", orgId], env)).json.members).toEqual([expect.objectContaining({ email: "ada@example.com" })]);
    const again = await runCli(["member", "remove", orgId, "bob@example.com"], env);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("error (not_found): membership not found");
    expect(userId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
