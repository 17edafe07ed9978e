/**
 * What the extension blocked, reported to the server in batches (BrowserService.ReportEnforcementEvents): a batch
 * leaves every FLUSH_MS while events wait, at most MAX_BATCH a call, so a session stays within its server-side limit
 * (10 calls a minute). The queue lives in the worker's memory only: what waits when Chrome stops the worker, what
 * waits past MAX_QUEUED, and a batch the server refuses or cannot take are dropped (docs/browser-extension.md).
 */
import { readConfig } from "./config.ts";
import { readSession } from "./session.ts";

export type BlockedKind = "navigation_blocked" | "download_blocked" | "upload_blocked" | "copy_paste_blocked" | "read_only_blocked";

export interface BlockedEvent {
  readonly kind: BlockedKind;
  /** check-url's reason code, `policy` (a network rule of the org's policy), `fail_closed:<reason>`, or the action. */
  readonly rule: string;
  readonly url: string;
  /** Epoch milliseconds. */
  readonly at: number;
}

export const FLUSH_MS = 10_000;
export const MAX_BATCH = 50;
export const MAX_QUEUED = 500;

/** The request body, in Connect's JSON (times as RFC 3339). */
export function reportBody(orgId: string, events: readonly BlockedEvent[]): string {
  return JSON.stringify({ orgId, events: events.map(({ kind, rule, url, at }) => ({ kind, rule, url, at: new Date(at).toISOString() })) });
}

export interface Reporter {
  add(event: BlockedEvent): void;
}

/** `send` answers whether the batch was taken; `schedule` runs its callback after a delay (a timer, or a test's clock). */
export function createReporter(send: (batch: readonly BlockedEvent[]) => Promise<boolean>, schedule: (run: () => void, ms: number) => void): Reporter {
  const queue: BlockedEvent[] = [];
  let armed = false;
  const arm = (): void => {
    if (armed || queue.length === 0) return;
    armed = true;
    schedule(() => void flush(), FLUSH_MS);
  };
  const flush = async (): Promise<void> => {
    const batch = queue.splice(0, MAX_BATCH);
    await send(batch).catch(() => false);
    armed = false;
    arm();
  };
  return {
    add(event) {
      if (queue.length >= MAX_QUEUED) return;
      queue.push(event);
      arm();
    },
  };
}

/** One batch with the extension's session; the poll keeps its access token fresh, so a refused token is not refreshed here. */
export async function sendReports(batch: readonly BlockedEvent[]): Promise<boolean> {
  const config = await readConfig();
  const session = await readSession();
  if (config === null || session === null) return false;
  const response = await fetch(`${config.serverOrigin}/gatehouse.v1.BrowserService/ReportEnforcementEvents`, {
    method: "POST",
    headers: { authorization: `Bearer ${session.accessToken}`, "content-type": "application/json", "connect-protocol-version": "1" },
    body: reportBody(session.orgId, batch),
    credentials: "omit",
  });
  return response.ok;
}
