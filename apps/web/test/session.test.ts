import { describe, expect, it, vi } from "vitest";
import { DEVICE_FINGERPRINT_KEY, deviceFingerprint } from "../src/device-fingerprint.ts";
import { createSessionStore, SESSION_STORAGE_KEY, sessionFromTokens } from "../src/session.ts";
import type { Session } from "../src/session.ts";
import { memoryStorage } from "./memory-storage.ts";

const session: Session = { accessToken: "gh_at_1", refreshToken: "gh_rt_1", expiresAt: "2030-01-01T00:00:00.000Z", userId: "u1", orgId: "o1" };

describe("session store", () => {
  it("stores exactly the five session fields as JSON and reads them back", () => {
    const storage = memoryStorage();
    const sessions = createSessionStore(storage);
    sessions.set({ ...session, extra: "dropped" } as Session);
    expect(JSON.parse(storage.items.get(SESSION_STORAGE_KEY) ?? "")).toEqual(session);
    expect(sessions.get()).toEqual(session);
  });

  it("keeps issued tokens with their expiry in ISO 8601", () => {
    expect(sessionFromTokens({ ...session, expiresAt: Date.parse(session.expiresAt), amr: ["pwd"], aal: 1 })).toEqual(session);
  });

  it("returns the same object until the stored value changes (for useSyncExternalStore)", () => {
    const sessions = createSessionStore(memoryStorage());
    sessions.set(session);
    expect(sessions.get()).toBe(sessions.get());
  });

  it("treats unreadable or incomplete stored values as signed out", () => {
    for (const raw of ["not json", "null", "{}", JSON.stringify({ ...session, accessToken: "" }), JSON.stringify({ ...session, orgId: 5 })]) {
      expect(createSessionStore(memoryStorage({ [SESSION_STORAGE_KEY]: raw })).get()).toBeNull();
    }
  });

  it("clear() removes the session and notifies subscribers", () => {
    const storage = memoryStorage();
    const sessions = createSessionStore(storage);
    const listener = vi.fn();
    sessions.subscribe(listener);
    sessions.set(session);
    sessions.clear();
    expect(sessions.get()).toBeNull();
    expect(storage.items.size).toBe(0);
    expect(listener).toHaveBeenCalledTimes(2);
  });
});

describe("deviceFingerprint", () => {
  const random = globalThis.crypto;

  it("creates a 128-bit hex id once and reuses it", () => {
    const storage = memoryStorage();
    const id = deviceFingerprint(storage, random);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(storage.items.get(DEVICE_FINGERPRINT_KEY)).toBe(id);
    expect(deviceFingerprint(storage, random)).toBe(id);
  });

  it("replaces a malformed stored id", () => {
    const storage = memoryStorage({ [DEVICE_FINGERPRINT_KEY]: "password-login" });
    expect(deviceFingerprint(storage, random)).toMatch(/^[0-9a-f]{32}$/);
  });

  it("still returns an id when storage throws", () => {
    const broken = {
      getItem: () => {
        throw new Error("blocked");
      },
      setItem: () => {
        throw new Error("blocked");
      },
      removeItem: () => undefined,
    };
    expect(deviceFingerprint(broken, random)).toMatch(/^[0-9a-f]{32}$/);
    expect(deviceFingerprint(null, random)).toMatch(/^[0-9a-f]{32}$/);
  });

  it("is kept with the session too: with localStorage blocked, a reload of the tab finds the same id", () => {
    const blocked = {
      getItem: () => {
        throw new Error("blocked");
      },
      setItem: () => {
        throw new Error("blocked");
      },
      removeItem: () => undefined,
    };
    const tab = memoryStorage();
    const id = deviceFingerprint(blocked, random, tab);
    expect(tab.items.get(DEVICE_FINGERPRINT_KEY)).toBe(id);
    expect(deviceFingerprint(blocked, random, tab)).toBe(id);
  });

  it("the browser's id wins over the tab's, and both keep it", () => {
    const local = memoryStorage();
    const id = deviceFingerprint(local, random);
    const tab = memoryStorage({ [DEVICE_FINGERPRINT_KEY]: "0".repeat(32) });
    expect(deviceFingerprint(local, random, tab)).toBe(id);
    expect(tab.items.get(DEVICE_FINGERPRINT_KEY)).toBe(id);
    const fresh = memoryStorage();
    expect(deviceFingerprint(fresh, random, tab)).toBe(id);
    expect(fresh.items.get(DEVICE_FINGERPRINT_KEY)).toBe(id);
  });
});
