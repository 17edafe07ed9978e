import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_ENV, runCli, seedOrgAndMember, startServerProcess, tempSqliteDatabase, type ServerProcess, type TestDatabase } from "./support/server-process.ts";

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery";

/** The worker processes of the supervisor `pid`, by the kernel's parent links. */
function workerPids(pid: number): number[] {
  const result = spawnSync("pgrep", ["-P", String(pid)], { encoding: "utf8" });
  return result.stdout.split("\n").filter(Boolean).map(Number).sort();
}

async function waitFor<T>(read: () => T, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("WORKERS: several server processes on one port", () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let orgId: string;
  const env = () => ({
    DATABASE_URL: db.databaseUrl,
    PASSWORD_HASH_MEMORY_KIB: "1024",
    PASSWORD_HASH_PASSES: "1",
    RATE_LIMIT_IP_PER_MINUTE: "0",
    WORKERS: "2",
  });

  /** Logs in (MFA is off for the org) and checks a URL, each on a fresh connection. */
  async function loginAndCheck(): Promise<string> {
    const init = (body: unknown, token?: string): RequestInit => ({
      method: "POST",
      headers: { "content-type": "application/json", connection: "close", ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body),
    });
    const login = await fetch(`${server.url}/gatehouse.v1.AuthService/Login`, init({ email: EMAIL, password: PASSWORD, orgId, deviceFingerprint: "laptop" }));
    const { tokens } = (await login.json()) as { tokens: { accessToken: string } };
    const check = await fetch(`${server.url}/api/browser/check-url`, init({ org_id: orgId, url: "https://evil.example.com/" }, tokens.accessToken));
    return ((await check.json()) as { reason_code: string }).reason_code;
  }

  beforeAll(async () => {
    db = tempSqliteDatabase();
    ({ orgId } = await seedOrgAndMember(env(), EMAIL, PASSWORD));
    expect((await runCli(["org", "settings", orgId, "--json", '{"require_mfa_new_device": false, "require_mfa_untrusted_device": false}'], env())).status).toBe(
      0,
    );
    expect((await runCli(["policy", "set", orgId, "--json", JSON.stringify(BLOCK_EVIL)], env())).status).toBe(0);
    server = await startServerProcess(env());
  });

  afterAll(async () => {
    await server?.stop();
    db?.dispose();
  });

  /** The workers the supervisor logged as listening, in order. */
  function listeningWorkers(): number[] {
    const pids = server.logEntries().flatMap((entry) => (entry.msg === "worker listening" && typeof entry.worker === "number" ? [entry.worker] : []));
    return [...new Set(pids)];
  }

  it("serves from two workers, replaces one that crashes, and drains all of them on SIGTERM", async () => {
    const supervisor = server.process.pid!;
    const first = await waitFor(listeningWorkers, (pids) => pids.length === 2);
    expect(workerPids(supervisor)).toEqual([...first].sort());
    for (let i = 0; i < 6; i++) expect(await loginAndCheck()).toBe("blocked");

    process.kill(first[0]!, "SIGKILL");
    const replaced = await waitFor(
      () => workerPids(supervisor),
      (pids) => pids.length === 2 && !pids.includes(first[0]!),
    );
    expect(replaced).toContain(first[1]);
    await waitFor(listeningWorkers, (pids) => pids.length === 3);
    for (let i = 0; i < 6; i++) expect(await loginAndCheck()).toBe("blocked");

    expect(await server.stop()).toBe(0);
    expect(workerPids(supervisor)).toEqual([]);
    for (const pid of replaced) expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe("WORKERS configuration", () => {
  it("is refused above 1 in dev OTP mode, where each process would keep its own OTPs", async () => {
    const db = tempSqliteDatabase();
    try {
      const failure = await startServerProcess({ ...DEV_ENV, DATABASE_URL: db.databaseUrl, WORKERS: "2" }).then(
        () => null,
        (error: Error) => error,
      );
      expect(failure?.message).toContain("WORKERS must be 1 in dev OTP mode");
    } finally {
      db.dispose();
    }
  });

  it("is refused when it is not a whole number from 1 to 64", async () => {
    const failure = await startServerProcess({ WORKERS: "0" }).then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).toContain("WORKERS must be a whole number from 1 to 64");
  });
});

const BLOCK_EVIL = {
  access_control: { allowed_domains: [], blocked_domains: ["*.evil.example.com"], default_action: "allow", wildcard_supported: true },
  action_restrictions: { allowed_actions: ["navigate"], read_only_mode: false },
};
