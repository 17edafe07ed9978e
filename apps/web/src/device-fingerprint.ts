import type { StorageLike } from "./session.ts";

export const DEVICE_FINGERPRINT_KEY = "gatehouse.deviceFingerprint";
const FINGERPRINT_SHAPE = /^[0-9a-f]{32}$/;

/** 128 random bits as hex. `crypto.getRandomValues` also works outside secure contexts, unlike `randomUUID`. */
export function randomFingerprint(random: Pick<Crypto, "getRandomValues">): string {
  const bytes = random.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The id of this browser, created once and kept in localStorage so the server can recognise a
 * trusted device across sign-ins. It is a random value, not derived from the browser's traits.
 * When storage is unavailable (blocked by the user) the id lives for this page only.
 */
export function deviceFingerprint(storage: StorageLike | null, random: Pick<Crypto, "getRandomValues">): string {
  try {
    const stored = storage?.getItem(DEVICE_FINGERPRINT_KEY) ?? null;
    if (stored !== null && FINGERPRINT_SHAPE.test(stored)) return stored;
  } catch {
    // Storage blocked: fall through to a fresh id.
  }
  const fresh = randomFingerprint(random);
  try {
    storage?.setItem(DEVICE_FINGERPRINT_KEY, fresh);
  } catch {
    // Not persisted: MFA may be asked again on the next sign-in.
  }
  return fresh;
}
