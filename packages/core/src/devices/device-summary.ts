import type { Device, EpochMs } from "../model.ts";

/**
 * A device as people see it (the user, an org admin, the operator): never its fingerprint hash, which with a
 * leaked key would let a guess be checked, and which names the device to nobody.
 */
export interface DeviceSummary {
  readonly id: string;
  readonly userId: string;
  readonly orgId: string;
  /** What the device is, from its user agent ("Firefox on Linux"); "Unknown device" when none was sent. */
  readonly label: string;
  readonly userAgent: string | null;
  readonly lastAddress: string | null;
  readonly trusted: boolean;
  readonly trustedUntil: EpochMs | null;
  readonly trustRevokedAt: EpochMs | null;
  readonly createdAt: EpochMs;
  readonly lastSeenAt: EpochMs;
  /** The device of the session asking (the user's own listing); false in an admin's or the operator's. */
  readonly current: boolean;
}

// Headless Chrome first: it is automation more often than a person, which an admin reading the list wants to see.
const BROWSERS: readonly [RegExp, string][] = [
  [/\bHeadlessChrome\//, "Headless Chrome"],
  [/\bEdg(e|A|iOS)?\//, "Edge"],
  [/\bOPR\//, "Opera"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bChrom(e|ium)\/|\bCriOS\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
];

const SYSTEMS: readonly [RegExp, string][] = [
  [/\b(iPhone|iPad|iPod)\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

/** A short name for a device from its user agent: a browser and a system when both are recognised. */
export function deviceLabel(userAgent: string | null): string {
  if (userAgent === null) return "Unknown device";
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser !== undefined && system !== undefined) return `${browser} on ${system}`;
  return browser ?? system ?? userAgent.split(/[\s/]/, 1)[0] ?? "Unknown device";
}

export function summarizeDevice(device: Device, currentDeviceId: string | null = null): DeviceSummary {
  return {
    id: device.id,
    userId: device.userId,
    orgId: device.orgId,
    label: deviceLabel(device.userAgent),
    userAgent: device.userAgent,
    lastAddress: device.lastAddress,
    trusted: device.trusted,
    trustedUntil: device.trustedUntil,
    trustRevokedAt: device.trustRevokedAt,
    createdAt: device.createdAt,
    lastSeenAt: device.lastSeenAt,
    current: device.id === currentDeviceId,
  };
}
