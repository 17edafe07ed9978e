import type { StorageLike } from "../session.ts";

const KEY = "gatehouse.registrantProof";

/**
 * Register's registrant proof, kept in this tab's sessionStorage: the verification link opened in this tab
 * sends it, and keeps the password chosen at sign-up; opened anywhere else (another tab, browser or person), the
 * link page asks for the password instead (docs/decisions/registrant-proof.md).
 */
export interface RegistrantProofStore {
  keep(proof: string): void;
  /** The kept proof; empty when none. */
  current(): string;
  forget(): void;
}

/** Storage that throws (blocked Web Storage) keeps nothing: the link page then asks for the password. */
export function createRegistrantProofStore(storage: StorageLike | null): RegistrantProofStore {
  const attempt = <T>(work: () => T, fallback: T): T => {
    try {
      return work();
    } catch {
      return fallback;
    }
  };
  return {
    keep: (proof) => attempt(() => (proof === "" ? storage?.removeItem(KEY) : storage?.setItem(KEY, proof)), undefined),
    current: () => attempt(() => storage?.getItem(KEY) ?? "", ""),
    forget: () => attempt(() => storage?.removeItem(KEY), undefined),
  };
}
