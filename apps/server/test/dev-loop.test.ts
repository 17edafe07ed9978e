/**
 * `npm run dev` as a development loop: the server runs from its sources (no build) and restarts on a
 * change, and Vite's dev server forwards API calls to it. The loop runs in a scratch copy of the
 * repository (see scratchRepository), and the changed source is a line appended to the copy's
 * serve.ts: the working tree is never edited, so nothing else reading it meanwhile can see the
 * change, and a crashed run leaves it as it was.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, tempSqliteDatabase, type TestDatabase } from "./support/server-process.ts";

/**
 * A repository whose dev script, apps/server (bin, src, package.json) and web client sources are
 * copies; the other packages and the dependencies are links to the real ones, with @gatehouse/server
 * and @gatehouse/web naming the copies. It has no built client, so the loop builds one into the copy:
 * nothing here reads or writes the repository's dist/, which other tests rebuild meanwhile.
 */
function scratchRepository(): string {
  const root = mkdtempSync(join(tmpdir(), "gatehouse-dev-loop-"));
  const link = (target: string, path: string) => symlinkSync(target, join(root, path));
  const copies = ["package.json", "tsconfig.base.json", "scripts/dev.ts", "apps/server/package.json", "apps/server/bin", "apps/server/src"];
  const webSources = ["index.html", "package.json", "public", "src", "tsconfig.json", "vite.config.ts"];
  for (const path of [...copies, ...webSources.map((name) => `apps/web/${name}`)]) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    cpSync(join(REPO_ROOT, path), join(root, path), { recursive: true });
  }
  link(join(REPO_ROOT, "packages"), "packages");
  mkdirSync(join(root, "node_modules/@gatehouse"), { recursive: true });
  for (const entry of readdirSync(join(REPO_ROOT, "node_modules"))) {
    if (entry !== "@gatehouse") link(join(REPO_ROOT, "node_modules", entry), join("node_modules", entry));
  }
  for (const entry of readdirSync(join(REPO_ROOT, "node_modules/@gatehouse"))) {
    const copied = { server: "apps/server", web: "apps/web" }[entry];
    const target = copied === undefined ? join(REPO_ROOT, "node_modules/@gatehouse", entry) : join(root, copied);
    link(target, join("node_modules/@gatehouse", entry));
  }
  return root;
}

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
  let scratch: string;
  const nonce = randomBytes(6).toString("hex");

  beforeAll(async () => {
    scratch = scratchRepository();
    db = tempSqliteDatabase();
    [port, webPort] = [await freePort(), await freePort()];
    const child = spawn("npm", ["run", "dev"], {
      cwd: scratch,
      // Its own process group, so stopping it stops the server and Vite with it.
      detached: true,
      env: { ...process.env, PORT: String(port), DEV_WEB_PORT: String(webPort), DATABASE_URL: db.databaseUrl, LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    exited = new Promise((resolve) => child.once("exit", resolve));
    // Only while it runs: a loop that already ended (a failed build, say) has no group left to stop.
    stop = () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGTERM");
    };
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  });

  afterAll(async () => {
    stop?.();
    await exited;
    db?.dispose();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
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
    // The copy has no built client: the first run builds it once before starting.
    await until("server", () => answers(`http://127.0.0.1:${port}/healthz`), 90_000);
    expect(existsSync(join(scratch, "apps/server/dist/web/index.html"))).toBe(true);
    await until("Vite", () => answers(`http://127.0.0.1:${webPort}/`));
    expect(await (await fetch(`http://127.0.0.1:${webPort}/`)).text()).toContain("/@react-refresh");
    // Forwarded by Vite: the server's JSON answer, not the client's page.
    const forwarded = await fetch(`http://127.0.0.1:${webPort}/api/dev/mfa/otp?challenge_id=none`);
    expect([forwarded.status, forwarded.headers.get("content-type")]).toEqual([404, "application/json; charset=utf-8"]);

    const listening = output.split('"msg":"gatehouse listening"').length;
    const source = join(scratch, "apps/server/src/serve.ts");
    writeFileSync(source, `${readFileSync(source, "utf8")}\nprocess.stderr.write("dev probe ${nonce}\\n");\n`);
    await until("restart with the changed source", () => output.includes(`dev probe ${nonce}`));
    await until("listening again", () => output.split('"msg":"gatehouse listening"').length > listening);
    expect(await answers(`http://127.0.0.1:${port}/healthz`)).toBe(true);
    expect(output).toContain("Restarting");
  }, 150_000);
});
