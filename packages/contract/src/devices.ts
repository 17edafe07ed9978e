/** A user's devices on the wire: AdminService.ListUserDevices. */
import { timestampFromMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { Device } from "./gen/gatehouse/v1/admin_pb.ts";
import { optionalMs, requiredMs } from "./timestamps.ts";

/** A device as the core stores it: the fields the wire is made from (the core's `Device` has them). */
export interface StoredDevice {
  readonly id: string;
  readonly fingerprint: string;
  readonly trusted: boolean;
  readonly trustedUntil: number | null;
  readonly trustRevokedAt: number | null;
  readonly createdAt: number;
  readonly lastSeenAt: number;
}

/** A device as an admin sees it; times are epoch milliseconds. */
export interface DeviceView {
  readonly id: string;
  readonly fingerprint: string;
  /** False once an admin revoked its trust. Effective only while `trustedUntil` is in the future. */
  readonly trusted: boolean;
  /** Null when the device was never trusted. */
  readonly trustedUntil: number | null;
  readonly createdAt: number;
  readonly lastSeenAt: number;
}

/** Device's fields as the server answers with them. */
export interface WireDevice {
  id: string;
  fingerprint: string;
  trusted: boolean;
  trustedUntil: Timestamp | undefined;
  createdAt: Timestamp;
  lastSeenAt: Timestamp;
}

export function deviceToWire(device: StoredDevice): WireDevice {
  return {
    id: device.id,
    fingerprint: device.fingerprint,
    trusted: device.trusted && device.trustRevokedAt === null,
    trustedUntil: device.trustedUntil === null ? undefined : timestampFromMs(device.trustedUntil),
    createdAt: timestampFromMs(device.createdAt),
    lastSeenAt: timestampFromMs(device.lastSeenAt),
  };
}

/** A device without `created_at` or `last_seen_at` is malformed and throws. */
export function deviceFromWire(device: Device): DeviceView {
  return {
    id: device.id,
    fingerprint: device.fingerprint,
    trusted: device.trusted,
    trustedUntil: optionalMs(device.trustedUntil),
    createdAt: requiredMs(device.createdAt, "device creation time"),
    lastSeenAt: requiredMs(device.lastSeenAt, "device last-seen time"),
  };
}
