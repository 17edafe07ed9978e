/**
 * A rolling restart of two replicas under steady sign-ins, behind a load balancer that follows
 * /readyz, loses no request.
 *
 * "Loses no request" means: every request the client sent was answered by some replica (here, a
 * Login answered with tokens). The client retries only an attempt the kernel refused (ECONNREFUSED:
 * nothing reached a server, so a retry cannot do anything twice); any reset, hang-up or dropped
 * response after a request was sent counts as lost, because the client cannot know whether it took
 * effect. The load balancer is the test's own: it probes each replica's /readyz every
 * PROBE_INTERVAL_MS and sends new requests only to replicas that answered 200 (as a real one does,
 * with its probe period). The servers make the rest hold: after SIGTERM /readyz fails at once while
 * the listener stays open for SHUTDOWN_DRAIN_MS (far longer than a probe period), so requests sent
 * before the balancer noticed are still answered, each closing its connection (`Connection: close`),
 * and nothing is left to cut when the listener closes.
 */
import { request, Agent } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, seedOrgAndMember, startServerProcess, tempSqliteDatabase, type ServerProcess, type TestDatabase } from "./support/server-process.ts";

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery";
const LOOPS = 2;
/** The simulated load balancer's probe period; SHUTDOWN_DRAIN_MS below is forty of them. */
const PROBE_INTERVAL_MS = 50;
const SHUTDOWN_DRAIN_MS = 2000;

describe("rolling restart of two replicas behind a load balancer", () => {
  let db: TestDatabase;
  let orgId: string;
  const env = () => ({
    DATABASE_URL: db.databaseUrl,
    PASSWORD_HASH_MEMORY_KIB: "1024",
    PASSWORD_HASH_PASSES: "1",
    RATE_LIMIT_IP_PER_MINUTE: "0",
    SHUTDOWN_DRAIN_MS: String(SHUTDOWN_DRAIN_MS),
    LOG_REQUESTS: "false",
  });
  const replicas: ServerProcess[] = [];

  beforeAll(async () => {
    db = tempSqliteDatabase();
    ({ orgId } = await seedOrgAndMember(env(), EMAIL, PASSWORD));
    expect((await runCli(["org", "settings", orgId, "--json", '{"require_mfa_new_device": false, "require_mfa_untrusted_device": false}'], env())).status).toBe(
      0,
    );
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
    const answeredBy = ports.map(() => 0);
    const inRotation = ports.map(() => true);
    const leftRotation = ports.map(() => false);
    let turn = 0;
    let running = true;

    /** Resolves once `holds` is true, re-checked after every answer and every probe. */
    const waiters = new Set<() => void>();
    const changed = () => waiters.forEach((check) => check());
    const until = (holds: () => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!holds()) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    const answered = () => answeredBy.reduce((sum, n) => sum + n, 0);

    const probes = ports.map(async (port, index) => {
      while (running) {
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (response) => response.status === 200,
          () => false,
        );
        inRotation[index] = ready;
        if (!ready) leftRotation[index] = true;
        changed();
        await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
      }
    });

    const attempt = (target: number): Promise<number> =>
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
              resolve(tokens ? 200 : (res.statusCode ?? 0));
            });
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(body);
      });

    /** One sign-in: to the next replica in rotation; to another only when the connection is refused. */
    const signIn = async (): Promise<void> => {
      await until(() => inRotation.some(Boolean));
      const candidates = ports.flatMap((_, index) => (inRotation[index] ? [index] : []));
      let target = candidates[turn++ % candidates.length]!;
      for (let tries = 0; ; tries++) {
        try {
          const status = await attempt(target);
          if (status !== 200) lost.push(`status ${status}`);
          answeredBy[target]! += 1;
          changed();
          return;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== "ECONNREFUSED" || tries > 100) {
            lost.push(String(code ?? error));
            return;
          }
          target = (target + 1) % ports.length;
        }
      }
    };
    const loops = Array.from({ length: LOOPS }, async () => {
      while (running) await signIn();
    });

    await until(() => answered() >= 20);
    for (const index of [0, 1]) {
      expect(await replicas[index]!.stop()).toBe(0);
      replicas[index] = await startServerProcess({ ...env(), PORT: String(ports[index]) });
      const before = answeredBy[index]!;
      await until(() => answeredBy[index]! >= before + 10);
    }
    running = false;
    await Promise.all([...loops, ...probes]);
    for (const agent of agents) agent.destroy();

    expect(lost).toEqual([]);
    expect(answered()).toBeGreaterThanOrEqual(40);
    // Each replica left the rotation during its restart and served again after it.
    expect(leftRotation).toEqual([true, true]);
  }, 120_000);
});
