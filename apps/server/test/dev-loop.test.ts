/**
 * `npm run dev` as a development loop: the server runs from its sources (no build) and restarts on a
 * change, and Vite's dev server forwards API calls to it. The changed source is a line appended to
 * serve.ts that does something only when this run's nonce is in the environment, so any other process
 * loading the file meanwhile behaves as before; the file is restored afterwards.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, tempSqliteDatabase, type TestDatabase } from "./support/server-process.ts";

const SOURCE = join(REPO_ROOT, "apps/server/src/serve.ts");

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("npm run dev", () => {
  let db: TestDatabase;
  let output = "";
  let exited: Promise<number | null>;
  let stop: () => void;
  let port: number;
  let webPort: number;
  const nonce = randomBytes(6).toString("hex");
  const original = readFileSync(SOURCE, "utf8");

  beforeAll(async () => {
    db = tempSqliteDatabase();
    [port, webPort] = [await freePort(), await freePort()];
    const child = spawn("npm", ["run", "dev"], {
      cwd: REPO_ROOT,
      // Its own process group, so stopping it stops the server and Vite with it.
      detached: true,
      env: { ...process.env, PORT: String(port), DEV_WEB_PORT: String(webPort), DATABASE_URL: db.databaseUrl, GATEHOUSE_DEV_PROBE: nonce, LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    exited = new Promise((resolve) => child.once("exit", resolve));
    stop = () => process.kill(-child.pid!, "SIGTERM");
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  });

  afterAll(async () => {
    writeFileSync(SOURCE, original);
    stop?.();
    await exited;
    db?.dispose();
  });

  /** Resolves once `seen` holds, checking as output arrives; fails with the output after `ms`. */
  async function until(what: string, seen: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await seen())) {
      if (Date.now() > deadline) throw new Error(`npm run dev: no ${what} within ${ms} ms:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const answers = (url: string) =>
    fetch(url).then(
      (response) => response.ok,
      () => false,
    );

  it("serves the API from the sources and the client through Vite, then a changed source after a restart", async () => {
    // On a clone whose web client was never built, the first run builds it once before starting.
    await until("server", () => answers(`http://127.0.0.1:${port}/healthz`), 90_000);
    await until("Vite", () => answers(`http://127.0.0.1:${webPort}/`));
    expect(await (await fetch(`http://127.0.0.1:${webPort}/`)).text()).toContain("/@react-refresh");
    // Forwarded by Vite: the server's JSON answer, not the client's page.
    const forwarded = await fetch(`http://127.0.0.1:${webPort}/api/dev/mfa/otp?challenge_id=none`);
    expect([forwarded.status, forwarded.headers.get("content-type")]).toEqual([404, "application/json; charset=utf-8"]);

    const listening = output.split('"msg":"gatehouse listening"').length;
    writeFileSync(SOURCE, `${original}\nif (process.env.GATEHOUSE_DEV_PROBE === "${nonce}") process.stderr.write("dev probe ${nonce}\\n");\n`);
    await until("restart with the changed source", () => output.includes(`dev probe ${nonce}`));
    await until("listening again", () => output.split('"msg":"gatehouse listening"').length > listening);
    expect(await answers(`http://127.0.0.1:${port}/healthz`)).toBe(true);
    expect(output).toContain("Restarting");
  }, 150_000);
});
