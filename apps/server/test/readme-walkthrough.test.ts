/**
 * The README's walk-through, pasted as it stands into bash, twice, against a server in dev OTP mode:
 * each paste must sign a new user in through MFA and get one allowed and one blocked URL, so the
 * README cannot drift from the server and a second paste cannot trip over the first one's names.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_ENV, REPO_ROOT, startServerProcess, tempSqliteDatabase, type ServerProcess, type TestDatabase } from "./support/server-process.ts";

/** The first `sh` block after the walk-through's heading, as it stands: the port comes from `PORT`. */
function walkThrough(): string {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## A five-minute walk-through"));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (block === null) throw new Error("README.md has no sh block after '## A five-minute walk-through'");
  return block[1]!;
}

describe("README walk-through", () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = tempSqliteDatabase();
    env = { ...DEV_ENV, DATABASE_URL: db.databaseUrl };
    server = await startServerProcess(env);
  });

  afterAll(async () => {
    await server?.stop();
    db?.dispose();
  });

  it("names the port once, as the default of PORT", () => {
    expect(walkThrough().match(/8080/g)).toEqual(["8080"]);
  });

  it("works as pasted, and pasted a second time", () => {
    const script = walkThrough();
    const port = new URL(server.url).port;
    for (const paste of [1, 2]) {
      const run = spawnSync("bash", ["-c", script], { cwd: REPO_ROOT, encoding: "utf8", env: { ...process.env, ...env, PORT: port }, timeout: 120_000 });
      expect(run.status, `paste ${paste}: ${run.stderr}`).toBe(0);
      expect(run.stdout, `paste ${paste}: ${run.stderr}`).toContain('{"allowed":true,"canonical_url":"https://docs.example.com/guide"}');
      expect(run.stdout, `paste ${paste}: ${run.stderr}`).toContain(
        '{"allowed":false,"reason":"Your organization blocks evil.example.com.","reason_code":"blocked","canonical_url":"https://evil.example.com/x"}',
      );
    }
  }, 240_000);
});
