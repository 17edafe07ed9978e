import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { DEV_ENV, runCli, startServerProcess, tempSqliteDatabase } from "../../../server/test/support/server-process.ts";
import type { ServerProcess, TestDatabase } from "../../../server/test/support/server-process.ts";
import { buildClient, CHROMIUM_ARGS, CHROMIUM_PATH, hasChromium } from "./chromium-harness.ts";

/** What a Chromium suite runs against: `gatehouse serve` with the client built from the current sources, and Chromium. */
export interface WebSuite {
  /** The server's settings (DEV_ENV, the database, the built client, the suite's own): the CLI seeds with the same. */
  readonly env: Record<string, string>;
  readonly server: ServerProcess;
  readonly browser: Browser;
}

export interface WebSuiteOptions {
  /** The server's settings besides DEV_ENV, the database and the built client; a function when worked out at start (a free port). */
  readonly env?: Record<string, string> | (() => Promise<Record<string, string>>);
  /** Writes the suite's orgs and people (through the CLI) before the server starts. */
  readonly seed: (env: Record<string, string>) => Promise<void>;
}

/**
 * The describe block's server and browser: before all, the client built into a temporary folder (never
 * apps/web/dist), a temporary SQLite file, `seed`, `gatehouse serve` and Chromium, handed to `started`; after
 * all, each closed and removed. Under CI a missing Chromium fails the suite instead of skipping it.
 */
export function serveWebClient(options: WebSuiteOptions, started: (suite: WebSuite) => void | Promise<void>): void {
  let distDir: string | undefined;
  let db: TestDatabase | undefined;
  let server: ServerProcess | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`CI is set but there is no Chromium at ${CHROMIUM_PATH}; install it or set CHROMIUM_PATH.`);
    distDir = mkdtempSync(join(tmpdir(), "gatehouse-web-dist-"));
    buildClient(distDir);
    db = tempSqliteDatabase();
    const own = typeof options.env === "function" ? await options.env() : (options.env ?? {});
    const env = { ...DEV_ENV, DATABASE_URL: db.databaseUrl, WEB_DIST: distDir, ...own };
    await options.seed(env);
    server = await startServerProcess(env);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    await started({ env, server, browser });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    db?.dispose();
    if (distDir !== undefined) rmSync(distDir, { recursive: true, force: true });
  });
}

/**
 * `gatehouse <args>` for a suite's seed, in this process (as `seedOrgAndMember` runs it): a CLI process a command
 * takes seconds to start on a loaded machine, and the seed runs inside the suite's start-up budget. Fails with
 * the CLI's stderr; answers its JSON.
 */
export async function seedCli(args: string[], env: Record<string, string>, input?: string): Promise<Record<string, unknown>> {
  const result = await runCli(args, env, input);
  if (result.status !== 0) throw new Error(`gatehouse ${args.join(" ")} failed: ${result.stderr}`);
  return result.json;
}

export interface WatchedPages {
  /** A new page in `context`, watched; the context closes after the test unless `keep` (the caller closes it). */
  open(context: BrowserContext, options?: { readonly keep?: boolean }): Promise<Page>;
}

/** The suite's pages: an uncaught page error or a CSP violation (the strict CSP must never block the client) fails the test it happened in. */
export function watchPages(): WatchedPages {
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
    expect(problems.splice(0)).toEqual([]);
  });

  return {
    async open(context, { keep = false } = {}) {
      if (!keep) contexts.push(context);
      const page = await context.newPage();
      page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
      page.on("console", (message) => {
        if (/content security policy/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
      });
      return page;
    },
  };
}
