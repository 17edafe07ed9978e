/**
 * `npx gatehouse serve` does not forward SIGTERM: npx exits, and the server it started is handed to init. The server
 * notices its parent is gone and drains and stops as on SIGTERM, so no server is left running.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { untilStopSignal } from "../src/stop-signal.ts";
import { BIN, binEnv, DEV_ENV, REPO_ROOT, tempSqliteDatabase } from "./support/server-process.ts";

/** Whether `pid` is a live process: an exited one whose new parent (init here) has not reaped it yet is a zombie, not running. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return true;
  }
}

/** A parent as npx is: starts the server, and on SIGTERM exits without passing it on. */
const NPX_LIKE = `require("node:child_process").spawn(process.argv[1], ["serve"], { stdio: "inherit" }); setInterval(() => {}, 1e6);`;

describe("the server notices its parent is gone", () => {
  it("SIGTERM to a launcher that does not forward it (npx) still drains the server and stops it", async () => {
    const db = tempSqliteDatabase();
    const parent = spawn(process.execPath, ["-e", NPX_LIKE, BIN], {
      cwd: REPO_ROOT,
      env: binEnv({ ...DEV_ENV, DATABASE_URL: db.databaseUrl, HOST: "127.0.0.1", PORT: "0" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const lines: Record<string, unknown>[] = [];
      const closed = new Promise<void>((resolve) => parent.stdout.once("close", () => resolve()));
      createInterface({ input: parent.stdout }).on("line", (line) => {
        if (line.startsWith("{")) lines.push(JSON.parse(line) as Record<string, unknown>);
      });
      await expect.poll(() => lines.find((line) => line.msg === "gatehouse listening"), { timeout: 20_000 }).toBeDefined();
      const serverPid = Number(lines.find((line) => line.msg === "gatehouse listening")!.pid);

      parent.kill("SIGTERM");
      // The server's stdout (inherited) closes only once the server itself has exited.
      await closed;
      expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(["shutting down", "closing the listener", "stopped"]));
      expect(lines.find((line) => line.msg === "shutting down")).toMatchObject({ reason: "parent_gone" });
      expect(running(serverPid)).toBe(false);
    } finally {
      parent.kill("SIGKILL");
      db.dispose();
    }
  }, 40_000);

  it("a parent there from the start is watched; one whose pid changes stops the process", async () => {
    let parentPid = 4242;
    const logged: object[] = [];
    const stopped = untilStopSignal({ info: (fields) => logged.push(fields) }, { parentPid: () => parentPid, pollMs: 5 });
    parentPid = 1;
    expect(await stopped).toBe("parent_gone");
    expect(logged).toEqual([{ reason: "parent_gone" }]);
  });
});
