/**
 * `gatehouse backup <file>` while a server writes sign-ins: the copy holds every sign-in whose
 * answer came back before the backup started, opens as a sound database, and the command never
 * overwrites a file. PostgreSQL is refused with a pointer to pg_dump.
 */
import { spawn } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { BIN, binEnv, REPO_ROOT, runCli, seedOrgAndMember, startServerProcess, tempSqliteDatabase } from "./support/server-process.ts";

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery";

/** The CLI without blocking this process's event loop, so the sign-ins keep going while it runs. */
function runCliAsync(args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { cwd: REPO_ROOT, env: binEnv(env) });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("gatehouse backup", () => {
  it("copies every sign-in committed before it started while sign-ins keep being written, and never overwrites", async () => {
    const db = tempSqliteDatabase();
    const env = {
      DATABASE_URL: db.databaseUrl,
      PASSWORD_HASH_MEMORY_KIB: "1024",
      PASSWORD_HASH_PASSES: "1",
      RATE_LIMIT_IP_PER_MINUTE: "0",
      LOG_REQUESTS: "false",
    };
    try {
      const { orgId } = await seedOrgAndMember(env, EMAIL, PASSWORD);
      expect((await runCli(["org", "settings", orgId, "--json", '{"require_mfa_new_device": false, "require_mfa_untrusted_device": false}'], env)).status).toBe(
        0,
      );
      const server = await startServerProcess(env);
      let answered = 0;
      let writing = true;
      const signIn = async () => {
        const response = await fetch(`${server.url}/gatehouse.v1.AuthService/Login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: EMAIL, password: PASSWORD, orgId, deviceFingerprint: "laptop" }),
        });
        expect(response.status).toBe(200);
        await response.arrayBuffer();
        answered += 1;
      };
      let firstTwenty: () => void = () => undefined;
      const warmedUp = new Promise<void>((resolve) => (firstTwenty = resolve));
      const writers = Array.from({ length: 2 }, async () => {
        while (writing) {
          await signIn();
          if (answered >= 20) firstTwenty();
        }
      });
      await warmedUp;

      const target = join(dirname(db.databaseUrl), "backup.sqlite");
      const committedBefore = answered;
      const backup = await runCliAsync(["backup", target], env);
      const answeredAfter = answered;
      writing = false;
      await Promise.all(writers);
      expect(await server.stop()).toBe(0);

      expect(backup.status).toBe(0);
      const printed = JSON.parse(backup.stdout) as Record<string, unknown>;
      expect(printed).toMatchObject({ backup: target, database: `sqlite ${db.databaseUrl}`, bytes: expect.any(Number) as unknown });
      // Sign-ins went on while the backup ran: the copy is of a database being written.
      expect(answeredAfter).toBeGreaterThan(committedBefore);

      const copy = new BetterSqlite3(target, { readonly: true, fileMustExist: true });
      try {
        expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
        const count = (kind: string) => (copy.prepare("select count(*) as n from audit_events where kind = ?").get(kind) as { n: number }).n;
        expect(count("sign_in.succeeded")).toBeGreaterThanOrEqual(committedBefore);
        expect(count("sign_in.succeeded")).toBeLessThanOrEqual(answered);
        // The device is there, its fingerprint nowhere: only its keyed hash.
        const devices = copy.prepare("select * from devices").all() as Record<string, unknown>[];
        expect(devices).toHaveLength(1);
        expect(Object.keys(devices[0]!)).not.toContain("fingerprint");
        expect(devices[0]!.fingerprint_hash).toMatch(/^[0-9a-f]{64}$/);
      } finally {
        copy.close();
      }
      expect(readFileSync(target).includes("laptop")).toBe(false);
      // Owner only: the copy holds what the database does.
      expect(statSync(target).mode & 0o777).toBe(0o600);

      const again = await runCli(["backup", target], env);
      expect(again.status).toBe(1);
      expect(again.stderr).toContain(`${target} already exists`);
      const other = join(dirname(db.databaseUrl), "taken.sqlite");
      writeFileSync(other, "not a database");
      expect((await runCli(["backup", other], env)).stderr).toContain("already exists");
    } finally {
      db.dispose();
    }
  }, 120_000);

  it("points PostgreSQL to pg_dump, with the password masked", async () => {
    const result = await runCli(["backup", "/tmp/never.sqlite"], { DATABASE_URL: "postgres://gate:s3cret-pw@127.0.0.1:1/none" });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("use pg_dump");
    expect(result.stderr).not.toContain("s3cret-pw");
  });
});
