import { describe, expect, it } from "vitest";
import { clientsFor } from "./support/clients.ts";
import { seedOrgAndMember, startServerProcess, tempSqliteDatabase } from "./support/server-process.ts";

describe("graceful shutdown", () => {
  it("SIGTERM lets an in-flight request finish, then exits 0 and refuses new connections", async () => {
    const db = tempSqliteDatabase();
    // A costly Argon2id (64 MiB, 4 passes: some 300 ms here) keeps the Login running at SIGTERM.
    const env = { DATABASE_URL: db.databaseUrl, PASSWORD_HASH_MEMORY_KIB: "65536", PASSWORD_HASH_PASSES: "4", RATE_LIMIT_IP_PER_MINUTE: "0" };
    try {
      const { orgId } = seedOrgAndMember(env, "ada@example.com", "correct horse battery");
      const server = await startServerProcess(env);
      const api = clientsFor(server.url);
      const inFlight = api.auth.login({ email: "ada@example.com", password: "correct horse battery", orgId });
      await new Promise((resolve) => setTimeout(resolve, 30));
      const exit = server.stop();
      const outcome = await inFlight;
      expect(outcome.result.case).toBe("phoneRequired");
      expect(await exit).toBe(0);
      await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
      expect(server.logs.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
    } finally {
      db.dispose();
    }
  }, 30_000);
});
