/**
 * Dev mode delivers every email to the dev mailbox, whichever process sends it: `gatehouse member add` run from
 * another terminal (its own process) invites a new address, and the dev server's GET /api/dev/mail shows the
 * invitation, as the README's walk-through promises.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_ENV, runCli, startServerProcess, tempSqliteDatabase, type ServerProcess, type TestDatabase } from "./support/server-process.ts";

describe("the dev mailbox, shared by the server and the command line", () => {
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

  it("member add of a new address in dev mode invites it, and the server's dev mail route has the invitation", async () => {
    const orgId = String((await runCli(["org", "create", "Initech"], env)).json.org_id);
    const added = await runCli(["member", "add", orgId, "newhire@example.com"], env);
    expect([added.status, added.json.status], added.stderr).toEqual([0, "invited"]);
    const mail = (await (await fetch(`${server.url}/api/dev/mail?to=NewHire@example.com`)).json()) as { messages: { subject: string; link: string }[] };
    expect(mail.messages).toHaveLength(1);
    expect(mail.messages[0]!.link).toMatch(/\/accept-invitation#token=/);
  });
});
