import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { Context } from "../context.ts";
import type { FactorKind, MfaChallenge, User, WebAuthnFactor } from "../model.ts";

/** What a caller sent to prove a factor: a code as read by `readCode`, and for a passkey its assertion. */
export interface FactorAnswer {
  readonly code: string;
  readonly passkey?: AuthenticationResponseJSON | undefined;
}

export type FactorCheck = { readonly matched: false } | { readonly matched: true; readonly recoveryCodesLeft?: number };

export const NOT_MATCHED: FactorCheck = { matched: false };

/**
 * One kind of second factor, as the sign-in sees it. Each kind is a value of this shape in its own folder
 * (`factors/<kind>/`), listed once in `registry.ts`; adding a kind is a folder and a line there.
 */
export interface Factor {
  readonly kind: FactorKind;
  /** The RFC 8176 `amr` value it adds to a session (design/factors.md). */
  readonly amr: string;
  /** A code as the caller sent it, checked for this kind's shape (what any of its codes looks like); `invalid_argument` otherwise. */
  readCode(code: string): string;
  /**
   * Whether the user holds it: the label the sign-in page shows (a masked phone, app or passkey names, codes
   * left), or null. `passkeys` are the user's, read once for every kind.
   */
  heldLabel(ctx: Context, user: User, passkeys: readonly WebAuthnFactor[]): Promise<string | null>;
  /**
   * Inside the unit of work that claimed one of the challenge's attempts: whether `answer` proves it. A use
   * is single: a second use of the same answer, concurrent or not, is not matched.
   */
  check(tx: Context, challenge: MfaChallenge, user: User, answer: FactorAnswer): Promise<FactorCheck>;
  /** Inside a factor reset's unit of work: removes what the user holds of this kind; returns how many records went. */
  removeAll(tx: Context, user: User): Promise<number>;
}
