import type { EpochMs } from "../model.ts";
import { invalidArgument } from "../errors.ts";

/**
 * What the server knows of one browser extension's session, from its last rules poll: which extension version
 * polled, which policy version it holds (the one it polled with, or the one it was just sent) and when.
 */
export interface ExtensionSessionRecord {
  /** The extension's own session (one per connected browser). */
  readonly sessionId: string;
  readonly orgId: string;
  readonly userId: string;
  readonly deviceId: string;
  /** As the extension reports it (`X-Gatehouse-Extension`); empty when an older extension sent none. */
  readonly extensionVersion: string;
  /** The policy version the extension holds after this poll. */
  readonly policyVersion: number;
  readonly lastPollAt: EpochMs;
}

/** The header the extension names its version in on every rules poll. */
export const EXTENSION_VERSION_HEADER = "x-gatehouse-extension";

const MAX_EXTENSION_VERSION_LENGTH = 32;

/**
 * The extension's version as it reports it: short and printable ASCII (a version such as `0.1.0`), so an admin's
 * listing shows what was sent and nothing else. Absent: empty.
 */
export function parseExtensionVersion(value: string | undefined): string {
  if (value === undefined) return "";
  if (value.length > MAX_EXTENSION_VERSION_LENGTH) {
    throw invalidArgument(EXTENSION_VERSION_HEADER, `must be at most ${MAX_EXTENSION_VERSION_LENGTH} characters`);
  }
  if (!/^[\x21-\x7e]*$/.test(value)) throw invalidArgument(EXTENSION_VERSION_HEADER, "must be printable ASCII without spaces");
  return value;
}

/**
 * How long after its last poll an extension still counts as connected. The worker polls every 5 s while it runs and an
 * alarm wakes it every 30 s when Chrome has stopped it, so a connected browser polls at least twice in this window.
 */
export const CONNECTED_WITHIN_MS = 90_000;
