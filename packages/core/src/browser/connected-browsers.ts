import { requireOrgAdmin, type Actor } from "../authorization/actor.ts";
import type { Context } from "../context.ts";
import { deviceLabel } from "../devices/device-summary.ts";
import type { EpochMs } from "../model.ts";
import type { Principal } from "../results.ts";
import type { UrlDecision } from "../url-policy/types.ts";
import { CONNECTED_WITHIN_MS, parseExtensionVersion, type ExtensionSessionRecord } from "../records/extension-session.ts";

/** A browser whose extension has polled the org's rules, as an org admin sees it. */
export interface ConnectedBrowser {
  readonly sessionId: string;
  readonly userId: string;
  readonly email: string;
  readonly deviceId: string;
  /** As the account page names a device ("Chrome on Linux"). */
  readonly deviceLabel: string;
  /** Empty when the extension sent none. */
  readonly extensionVersion: string;
  readonly policyVersion: number;
  /** The org's policy version now; the browser is out of date while `policyVersion` is lower. */
  readonly currentPolicyVersion: number;
  readonly lastPollAt: EpochMs;
  /** Polled within `CONNECTED_WITHIN_MS`. */
  readonly connected: boolean;
}

/** One upsert per poll: the rules route calls it after it answered the extension's session with `policyVersion`. */
export async function recordExtensionPoll(ctx: Context, principal: Principal, extensionVersion: string | undefined, policyVersion: number): Promise<void> {
  await ctx.stores.extensionSessions.recordPoll({
    sessionId: principal.sessionId,
    orgId: principal.orgId,
    userId: principal.userId,
    deviceId: principal.deviceId,
    extensionVersion: parseExtensionVersion(extensionVersion),
    policyVersion,
    lastPollAt: ctx.clock.now(),
  });
}

/** The records whose session is still live (a revoked or ended session's browser is not connected, whatever it polled). */
async function liveRecords(ctx: Context, orgId: string, records: readonly ExtensionSessionRecord[], now: EpochMs): Promise<ExtensionSessionRecord[]> {
  const liveByUser = new Map<string, Set<string>>();
  for (const userId of new Set(records.map((record) => record.userId))) {
    const sessions = await ctx.stores.sessions.listActiveByUser(orgId, userId, now);
    liveByUser.set(userId, new Set(sessions.map((session) => session.id)));
  }
  return records.filter((record) => liveByUser.get(record.userId)?.has(record.sessionId) === true);
}

/** The org's browsers with a live extension session, last poll first; org admins of that org (or a platform admin) only. */
export async function listConnectedBrowsers(ctx: Context, actor: Actor, orgId: string): Promise<ConnectedBrowser[]> {
  await requireOrgAdmin(ctx, actor, orgId);
  const now = ctx.clock.now();
  const records = await liveRecords(ctx, orgId, await ctx.stores.extensionSessions.listByOrg(orgId), now);
  // The version alone (the store tells it for any user id, member or not): the policy itself may be a million entries.
  const currentPolicyVersion = (await ctx.stores.browserPolicies.membershipAndVersion(orgId, "")).version ?? 0;
  const browsers: ConnectedBrowser[] = [];
  for (const record of records) {
    const [user, device] = await Promise.all([ctx.stores.users.findById(record.userId), ctx.stores.devices.findById(record.deviceId)]);
    browsers.push({
      sessionId: record.sessionId,
      userId: record.userId,
      email: user?.email ?? "",
      deviceId: record.deviceId,
      deviceLabel: deviceLabel(device?.userAgent ?? null),
      extensionVersion: record.extensionVersion,
      policyVersion: record.policyVersion,
      currentPolicyVersion,
      lastPollAt: record.lastPollAt,
      connected: now - record.lastPollAt <= CONNECTED_WITHIN_MS,
    });
  }
  return browsers;
}

const EXTENSION_REQUIRED: UrlDecision = {
  allowed: false,
  reasonCode: "extension_required",
  reason: "Your organization requires the Gatehouse browser extension: install it and connect it, then try again.",
};

const EXTENSION_OUT_OF_DATE: UrlDecision = {
  allowed: false,
  reasonCode: "extension_out_of_date",
  reason: "The Gatehouse extension's policy is out of date: wait a few seconds for it to update, then try again.",
};

/**
 * Under `require_browser_extension`: null when one of the member's live extension sessions in the org polled within
 * `CONNECTED_WITHIN_MS` and holds `currentVersion`; otherwise the denial that says why.
 */
export async function extensionGate(ctx: Context, principal: Principal, currentVersion: number): Promise<UrlDecision | null> {
  const now = ctx.clock.now();
  const own = await ctx.stores.extensionSessions.listByUser(principal.orgId, principal.userId);
  const fresh = await liveRecords(
    ctx,
    principal.orgId,
    own.filter((record) => now - record.lastPollAt <= CONNECTED_WITHIN_MS),
    now,
  );
  if (fresh.length === 0) return EXTENSION_REQUIRED;
  return fresh.some((record) => record.policyVersion === currentVersion) ? null : EXTENSION_OUT_OF_DATE;
}
