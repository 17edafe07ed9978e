/**
 * A rolling restart of two replicas under steady sign-ins loses no request.
 *
 * "Loses no request" means: every request the client sent was answered by some replica (here, a
 * Login answered with tokens). The client retries only an attempt the kernel refused (ECONNREFUSED:
 * nothing reached a server, so a retry cannot do anything twice), on the other replica; any reset,
 * hang-up or dropped response after a request was sent counts as lost, because the client cannot
 * know whether it took effect. The servers make that hold: after SIGTERM each response closes its
 * connection (`Connection: close`) while the listener stays open for SHUTDOWN_DRAIN_MS, so no
 * keep-alive connection is cut under a request, and once the listener closes a new connection is
 * refused rather than accepted and dropped.
 */
import { request, Agent } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, seedOrgAndMember, startServerProcess, tempSqliteDatabase, type ServerProcess, type TestDatabase } from "./support/server-process.ts";

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery";
const LOOPS = 2;

interface Outcome {
  readonly status: number;
  readonly closed: boolean;
}

describe("rolling restart of two replicas", () => {
  let db: TestDatabase;
  let orgId: string;
  const env = () => ({
    DATABASE_URL: db.databaseUrl,
    PASSWORD_HASH_MEMORY_KIB: "1024",
    PASSWORD_HASH_PASSES: "1",
    RATE_LIMIT_IP_PER_MINUTE: "0",
    SHUTDOWN_DRAIN_MS: "2000",
    LOG_REQUESTS: "false",
  });
  const replicas: ServerProcess[] = [];

  beforeAll(async () => {
    db = tempSqliteDatabase();
    ({ orgId } = seedOrgAndMember(env(), EMAIL, PASSWORD));
    expect(runCli(["org", "settings", orgId, "--json", '{"require_mfa_new_device": false, "require_mfa_untrusted_device": false}'], env()).status).toBe(0);
  });

  afterAll(async () => {
    for (const replica of replicas) await replica.stop();
    db?.dispose();
  });

  it("answers every sign-in while each replica in turn drains, stops and comes back on its port", async () => {
    replicas.push(...(await Promise.all([startServerProcess(env()), startServerProcess(env())])));
    const ports = replicas.map((replica) => replica.port);
    const agents = ports.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
    const body = JSON.stringify({ email: EMAIL, password: PASSWORD, orgId, deviceFingerprint: "laptop" });

    const lost: string[] = [];
    let answered = 0;
    let refused = 0;
    let closedByServer = 0;
    let turn = 0;
    let running = true;
    const waiters: { readonly count: number; readonly resolve: () => void }[] = [];
    const answeredAtLeast = (count: number) => new Promise<void>((resolve) => waiters.push({ count, resolve }));

    const attempt = (target: number): Promise<Outcome> =>
      new Promise((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port: ports[target],
            path: "/gatehouse.v1.AuthService/Login",
            method: "POST",
            agent: agents[target],
            headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () => {
              const tokens = res.statusCode === 200 && "tokens" in (JSON.parse(Buffer.concat(chunks).toString("utf8")) as object);
              resolve({ status: tokens ? 200 : (res.statusCode ?? 0), closed: res.headers.connection === "close" });
            });
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(body);
      });

    /** One sign-in: to the next replica in turn, and to the other one only when a connection is refused. */
    const signIn = async (): Promise<void> => {
      let target = turn++ % ports.length;
      for (let tries = 0; ; tries++) {
        try {
          const outcome = await attempt(target);
          if (outcome.status !== 200) lost.push(`status ${outcome.status}`);
          if (outcome.closed) closedByServer += 1;
          answered += 1;
          for (const waiter of waiters.filter((w) => answered >= w.count)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
          return;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== "ECONNREFUSED" || tries > 100) {
            lost.push(String(code ?? error));
            return;
          }
          refused += 1;
          target = (target + 1) % ports.length;
        }
      }
    };
    const loops = Array.from({ length: LOOPS }, async () => {
      while (running) await signIn();
    });

    await answeredAtLeast(20);
    for (const index of [0, 1]) {
      expect(await replicas[index]!.stop()).toBe(0);
      replicas[index] = await startServerProcess({ ...env(), PORT: String(ports[index]) });
      await answeredAtLeast(answered + 20);
    }
    running = false;
    await Promise.all(loops);
    for (const agent of agents) agent.destroy();

    expect(lost).toEqual([]);
    expect(answered).toBeGreaterThanOrEqual(60);
    // The restarts happened under load: responses during each drain said Connection: close, and attempts were refused while a replica was down.
    expect(closedByServer).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  }, 120_000);
});
