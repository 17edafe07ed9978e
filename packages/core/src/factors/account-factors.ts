import { recordAudit, type AuditSubject, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import type { CredentialCheck } from "../password-checks/credential-check.ts";
import { rateLimited, GatehouseError, invalidArgument } from "../errors.ts";
import { newRecoveryCode, RECOVERY_CODE_COUNT } from "./recovery-codes/recovery-codes.ts";
import { orgSettingsOf, requireStepUp } from "./step-up.ts";
import { matchTotpStep, newTotpSecret, totpUri } from "./totp/totp.ts";
import { usableFactors } from "./usable-factors.ts";
import { newId } from "../ids.ts";
import { requireId, requireOtp, requirePlainText } from "../input.ts";
import type { EpochMs, FactorKind, User } from "../model.ts";
import { requireAccountPassword } from "../password-checks/password-guesses.ts";
import { maskPhone } from "../phone.ts";
import { rateLimitKeys } from "../rate-limits/rate-limits.ts";
import type { Principal } from "../results.ts";
import { inTransaction } from "../stores/unit-of-work.ts";

/** The id RemoveFactor takes for the whole set of recovery codes (they are one factor to their owner). */
export const RECOVERY_CODES_FACTOR_ID = "recovery_codes";
const MAX_LABEL_LENGTH = 64;
const DEFAULT_TOTP_LABEL = "Authenticator app";
/** Confirmed authenticator apps a user may hold: each is tried on every TOTP verification. */
const MAX_TOTP_FACTORS = 5;

export interface FactorView {
  readonly id: string;
  readonly kind: FactorKind;
  readonly label: string;
  readonly createdAt: EpochMs;
  readonly lastUsedAt: EpochMs | null;
}

export interface FactorsView {
  readonly factors: readonly FactorView[];
  readonly recoveryCodesLeft: number;
  /** The verified phone, masked; empty when none. */
  readonly phoneMask: string;
}

export interface TotpEnrollment {
  readonly enrollmentId: string;
  /** Base32: shown once, to type into an app that cannot scan. */
  readonly secret: string;
  readonly otpauthUri: string;
}

export async function currentUser(ctx: Context, principal: Principal): Promise<User> {
  const user = await ctx.stores.users.findById(principal.userId);
  if (user === null) throw new GatehouseError("unauthenticated");
  return user;
}

export function subjectOf(principal: Principal, request: RequestMeta | undefined): AuditSubject {
  return { actor: { kind: "user", userId: principal.userId }, orgId: principal.orgId, userId: principal.userId, deviceId: principal.deviceId, request };
}

/** A user with no factor at all sets up the first one without a step-up: there is nothing to step up with. */
async function hasAnyFactor(ctx: Context, user: User): Promise<boolean> {
  if (user.phone !== null) return true;
  if ((await ctx.stores.totp.list(user.id)).some((factor) => factor.confirmedAt !== null)) return true;
  if ((await ctx.stores.passkeys.list(user.id)).length > 0) return true;
  return (await ctx.stores.recoveryCodes.count(user.id)) > 0;
}

export async function requireStepUpUnlessFirst(ctx: Context, principal: Principal, user: User): Promise<void> {
  if (await hasAnyFactor(ctx, user)) await requireStepUp(ctx, principal);
}

/** For a user's very first factor, which needs no step-up: the account's password, and the client asking (its hash lane). */
export interface FirstFactorProof {
  readonly currentPassword?: string;
  readonly clientKey?: string;
}

/**
 * What starting a new factor needs: a step-up, or for the user's very first factor (nothing to step up with) the
 * account's password, checked like ChangePassword's. A session alone, stolen or left open, must not be enough to
 * plant a factor, least of all a passkey its holder could then sign in with, no password asked.
 */
export async function requireStepUpOrPassword(
  ctx: Context,
  checkCredentials: CredentialCheck,
  principal: Principal,
  user: User,
  proof: FirstFactorProof = {},
): Promise<void> {
  if (await hasAnyFactor(ctx, user)) return requireStepUp(ctx, principal);
  await requireAccountPassword(ctx, checkCredentials, user, proof.currentPassword ?? "", proof.clientKey ?? "", "current_password");
}

export async function listFactors(ctx: Context, principal: Principal): Promise<FactorsView> {
  return factorsViewOf(ctx, await currentUser(ctx, principal));
}

/** A user's factors as their owner and their admins see them: never a secret. */
export async function factorsViewOf(ctx: Context, user: User): Promise<FactorsView> {
  const apps = (await ctx.stores.totp.list(user.id)).filter((factor) => factor.confirmedAt !== null);
  const passkeys = await ctx.stores.passkeys.list(user.id);
  return {
    factors: [
      ...passkeys.map(({ id, label, createdAt, lastUsedAt }) => ({ id, kind: "webauthn" as const, label, createdAt, lastUsedAt })),
      ...apps.map(({ id, label, createdAt, lastUsedAt }) => ({ id, kind: "totp" as const, label, createdAt, lastUsedAt })),
    ],
    recoveryCodesLeft: await ctx.stores.recoveryCodes.count(user.id),
    phoneMask: user.phone !== null && user.phoneVerified ? maskPhone(user.phone) : "",
  };
}

/**
 * A new authenticator app, pending until ConfirmTotpEnrollment proves the app computes its codes. The
 * secret is stored sealed; the user's earlier pending enrolments are dropped (one at a time).
 */
export async function startTotpEnrollment(
  ctx: Context,
  checkCredentials: CredentialCheck,
  principal: Principal,
  label: string,
  proof?: FirstFactorProof,
): Promise<TotpEnrollment> {
  const name = requirePlainText("label", label.trim()) || DEFAULT_TOTP_LABEL;
  if (name.length > MAX_LABEL_LENGTH) throw invalidArgument("label", `must be at most ${MAX_LABEL_LENGTH} characters`);
  const user = await currentUser(ctx, principal);
  await requireStepUpOrPassword(ctx, checkCredentials, principal, user, proof);
  const id = newId(ctx.random);
  const secret = newTotpSecret(ctx.random);
  await inTransaction(ctx, async (tx) => {
    const apps = await tx.stores.totp.list(user.id);
    for (const pending of apps.filter((factor) => factor.confirmedAt === null)) await tx.stores.totp.delete(user.id, pending.id);
    if (apps.length - apps.filter((factor) => factor.confirmedAt === null).length >= MAX_TOTP_FACTORS) {
      throw invalidArgument("label", `at most ${MAX_TOTP_FACTORS} authenticator apps; remove one first`);
    }
    const now = tx.clock.now();
    await tx.stores.totp.create({
      id,
      userId: user.id,
      label: name,
      sealedSecret: tx.secretBox.seal(secret, id),
      lastStep: null,
      confirmedAt: null,
      createdAt: now,
      lastUsedAt: null,
    });
  });
  return { enrollmentId: id, secret, otpauthUri: totpUri(secret, ctx.config.totpIssuer, user.email) };
}

/**
 * The app's current code confirms the enrolment; that code is used up with it (its time step is accepted),
 * so it cannot sign in too. A wrong code spends the user's failure budget, as a wrong MFA code does.
 */
export async function confirmTotpEnrollment(ctx: Context, principal: Principal, enrollmentId: string, code: string, request?: RequestMeta): Promise<string> {
  const id = requireId("enrollment_id", enrollmentId);
  const otp = requireOtp(code);
  const user = await currentUser(ctx, principal);
  await requireStepUpUnlessFirst(ctx, principal, user);
  return inTransaction(ctx, async (tx) => {
    const factor = await tx.stores.totp.find(id);
    if (factor === null || factor.userId !== user.id || factor.confirmedAt !== null) throw new GatehouseError("not_found", "enrollment not found");
    const now = tx.clock.now();
    const { limit, windowMs } = tx.config.otpFailuresPerUser;
    const budget = await tx.stores.rateLimiter.consume(rateLimitKeys.otpFailuresPerUser(user.id), limit, windowMs, now);
    if (!budget.allowed) throw rateLimited((budget.retryAt - now) / 1000);
    const secret = tx.secretBox.open(factor.sealedSecret, factor.id);
    const step = secret === null ? null : matchTotpStep(secret, otp, now);
    if (step === null || !(await tx.stores.totp.acceptStep(id, step, now))) {
      throw invalidArgument("code", "is not the authenticator app's current code");
    }
    await tx.stores.rateLimiter.refund(budget.receipt);
    await tx.stores.totp.confirm(id, now);
    await recordAudit(tx, "factor.enrolled", subjectOf(principal, request), { factorId: id, kind: "totp" });
    return id;
  });
}

/** Ten new recovery codes, replacing any earlier set; shown this once, stored as keyed hashes only. */
export async function generateRecoveryCodes(
  ctx: Context,
  checkCredentials: CredentialCheck,
  principal: Principal,
  request?: RequestMeta,
  proof?: FirstFactorProof,
): Promise<string[]> {
  const user = await currentUser(ctx, principal);
  await requireStepUpOrPassword(ctx, checkCredentials, principal, user, proof);
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => newRecoveryCode(ctx.random));
  await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    await tx.stores.recoveryCodes.replace(
      user.id,
      codes.map((code) => ({ userId: user.id, codeHash: tx.recoveryCodes.hash(code), createdAt: now })),
    );
    await recordAudit(tx, "factor.enrolled", subjectOf(principal, request), { factorId: RECOVERY_CODES_FACTOR_ID, kind: "recovery_code" });
  });
  return codes;
}

/**
 * Removes an authenticator app or a passkey (its id) or every recovery code (`recovery_codes`). Needs a
 * step-up. The last factor this org accepts is kept: without it the user could not complete MFA here. The
 * phone is not removable (the spec locks it; an admin's ResetUserFactors unlocks it).
 */
export async function removeFactor(ctx: Context, principal: Principal, factorId: string, request?: RequestMeta): Promise<void> {
  const id = requireId("factor_id", factorId);
  const user = await currentUser(ctx, principal);
  await requireStepUp(ctx, principal);
  const org = await orgSettingsOf(ctx, principal.orgId);
  await inTransaction(ctx, async (tx) => {
    const passkeys = await tx.stores.passkeys.list(user.id);
    const kind: FactorKind = id === RECOVERY_CODES_FACTOR_ID ? "recovery_code" : passkeys.some((factor) => factor.id === id) ? "webauthn" : "totp";
    const before = await usableFactors(tx, user, org);
    const removed =
      kind === "recovery_code"
        ? (await tx.stores.recoveryCodes.count(user.id)) > 0
        : kind === "webauthn" || (await tx.stores.totp.find(id))?.userId === user.id;
    if (!removed) throw new GatehouseError("not_found", "factor not found");
    const othersOfKind =
      kind === "totp"
        ? (await tx.stores.totp.list(user.id)).filter((factor) => factor.confirmedAt !== null && factor.id !== id)
        : passkeys.filter((factor) => factor.id !== id);
    const lastOfKind = kind === "recovery_code" || othersOfKind.length === 0;
    if (lastOfKind && before.length === 1 && before[0]?.kind === kind) {
      throw new GatehouseError("permission_denied", "this is the last second factor this organization accepts; add another first");
    }
    if (kind === "recovery_code") await tx.stores.recoveryCodes.replace(user.id, []);
    else if (kind === "webauthn") await tx.stores.passkeys.delete(user.id, id);
    else await tx.stores.totp.delete(user.id, id);
    await recordAudit(tx, "factor.removed", subjectOf(principal, request), { factorId: id, kind });
  });
}
