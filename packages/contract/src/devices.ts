/** A user's devices on the wire: AdminService.ListUserDevices and AccountService.ListDevices. */
import { timestampFromMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { Device } from "./gen/gatehouse/v1/admin_pb.ts";
import { optionalMs, requiredMs } from "./timestamps.ts";

/**
 * A device as the core describes it (its `DeviceSummary`): the fields the wire is made from. Never its
 * fingerprint, which only the client holds.
 */
export interface StoredDevice {
  readonly id: string;
  readonly label: string;
  readonly userAgent: string | null;
  readonly lastAddress: string | null;
  readonly trusted: boolean;
  readonly trustedUntil: number | null;
  readonly trustRevokedAt: number | null;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly current: boolean;
}

/** A device as a client sees it; times are epoch milliseconds. */
export interface DeviceView {
  readonly id: string;
  /** What the device is, from its user agent ("Firefox on Linux"). */
  readonly label: string;
  readonly userAgent: string | null;
  readonly lastAddress: string | null;
  /** False once an admin revoked its trust. Effective only while `trustedUntil` is in the future. */
  readonly trusted: boolean;
  /** Null when the device was never trusted. */
  readonly trustedUntil: number | null;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  /** The device of the session asking (the user's own listing). */
  readonly current: boolean;
}

/** Device's fields as the server answers with them. */
export interface WireDevice {
  id: string;
  label: string;
  userAgent?: string;
  lastAddress?: string;
  trusted: boolean;
  trustedUntil: Timestamp | undefined;
  createdAt: Timestamp;
  lastSeenAt: Timestamp;
  current: boolean;
}

export function deviceToWire(device: StoredDevice): WireDevice {
  return {
    id: device.id,
    label: device.label,
    ...(device.userAgent === null ? {} : { userAgent: device.userAgent }),
    ...(device.lastAddress === null ? {} : { lastAddress: device.lastAddress }),
    trusted: device.trusted && device.trustRevokedAt === null,
    trustedUntil: device.trustedUntil === null ? undefined : timestampFromMs(device.trustedUntil),
    createdAt: timestampFromMs(device.createdAt),
    lastSeenAt: timestampFromMs(device.lastSeenAt),
    current: device.current,
  };
}

/** A device without `created_at` or `last_seen_at` is malformed and throws. */
export function deviceFromWire(device: Device): DeviceView {
  return {
    id: device.id,
    label: device.label,
    userAgent: device.userAgent ?? null,
    lastAddress: device.lastAddress ?? null,
    trusted: device.trusted,
    trustedUntil: optionalMs(device.trustedUntil),
    createdAt: requiredMs(device.createdAt, "device creation time"),
    lastSeenAt: requiredMs(device.lastSeenAt, "device last-seen time"),
    current: device.current,
  };
}
