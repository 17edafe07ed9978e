import type { StorageLike } from "./session.ts";

export const DEVICE_FINGERPRINT_KEY = "gatehouse.deviceFingerprint";
const FINGERPRINT_SHAPE = /^[0-9a-f]{32}$/;

/** 128 random bits as hex. `crypto.getRandomValues` also works outside secure contexts, unlike `randomUUID`. */
export function randomFingerprint(random: Pick<Crypto, "getRandomValues">): string {
  const bytes = random.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function read(storage: StorageLike | null): string | null {
  try {
    const stored = storage?.getItem(DEVICE_FINGERPRINT_KEY) ?? null;
    return stored !== null && FINGERPRINT_SHAPE.test(stored) ? stored : null;
  } catch {
    return null;
  }
}

function keep(storage: StorageLike | null, fingerprint: string): void {
  try {
    storage?.setItem(DEVICE_FINGERPRINT_KEY, fingerprint);
  } catch {
    // Storage blocked: the other one keeps it.
  }
}

/**
 * The id of this browser: 128 random bits, not derived from the browser's traits, and a secret (with the
 * password, a trusted one skips the second factor; the server keeps only a keyed hash of it). Kept in
 * localStorage so the server recognises a trusted device across sign-ins, and with the session in
 * sessionStorage, so a reload of a tab whose localStorage is blocked still refreshes its session with the
 * id it signed in with. When neither keeps it, it lives for this page only (MFA may be asked again).
 */
export function deviceFingerprint(local: StorageLike | null, random: Pick<Crypto, "getRandomValues">, session: StorageLike | null = null): string {
  const fingerprint = read(local) ?? read(session) ?? randomFingerprint(random);
  keep(local, fingerprint);
  keep(session, fingerprint);
  return fingerprint;
}
