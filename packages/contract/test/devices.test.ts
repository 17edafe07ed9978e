import { describe, expect, it } from "vitest";
import { deviceFromWire, deviceToWire, type DeviceView, type StoredDevice } from "../src/devices.ts";
import { DeviceSchema, ListUserDevicesResponseSchema } from "../src/gen/gatehouse/v1/admin_pb.ts";
import { overTheWire } from "./support/wire.ts";

const T0 = Date.parse("2030-01-01T00:00:00.123Z");
const DAY = 86_400_000;
const device = (overrides: Partial<StoredDevice>): StoredDevice => ({
  id: "d1",
  label: "Firefox on Linux",
  userAgent: null,
  lastAddress: null,
  trusted: false,
  trustedUntil: null,
  trustRevokedAt: null,
  createdAt: T0,
  lastSeenAt: T0 + 1,
  current: false,
  ...overrides,
});

const DEVICES: readonly [string, StoredDevice, Partial<DeviceView>][] = [
  ["never trusted", device({}), { trusted: false, trustedUntil: null }],
  ["trusted", device({ trusted: true, trustedUntil: T0 + 30 * DAY }), { trusted: true, trustedUntil: T0 + 30 * DAY }],
  [
    "trust revoked: not trusted, the end of the old period kept",
    device({ trusted: true, trustedUntil: T0 + DAY, trustRevokedAt: T0 + 5 }),
    { trusted: false, trustedUntil: T0 + DAY },
  ],
  [
    "its user agent, last address and whether it is the caller's",
    device({ userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0", lastAddress: "203.0.113.7", current: true }),
    { userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0", lastAddress: "203.0.113.7", current: true },
  ],
];

describe("devices", () => {
  it.each(DEVICES)("%s: domain → wire → view", (_, stored, expected) => {
    const view: DeviceView = {
      id: "d1",
      label: "Firefox on Linux",
      userAgent: null,
      lastAddress: null,
      trusted: false,
      trustedUntil: null,
      createdAt: T0,
      lastSeenAt: T0 + 1,
      current: false,
      ...expected,
    };
    const answer = overTheWire(ListUserDevicesResponseSchema, { devices: [deviceToWire(stored)] });
    expect(answer.devices.map(deviceFromWire)).toEqual([view]);
  });

  it("carries no fingerprint: the wire's Device has no such field", () => {
    const wire = overTheWire(ListUserDevicesResponseSchema, { devices: [deviceToWire(device({}))] });
    expect(Object.keys(wire.devices[0]!)).not.toContain("fingerprint");
  });

  it("a device without its times is a malformed answer", () => {
    expect(() => deviceFromWire(overTheWire(DeviceSchema, { id: "d1" }))).toThrow(/The server/);
  });
});
