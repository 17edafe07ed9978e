import { recordAudit, type RequestMeta } from "../../audit/record.ts";
import type { Context } from "../../context.ts";
import type { CredentialCheck } from "../../password-checks/credential-check.ts";
import { GatehouseError, invalidArgument, isGatehouseError } from "../../errors.ts";
import { newRegistrationOptions } from "./passkey-registration.ts";
import { requireRegistrationResponse, verifyRegistration } from "./webauthn.ts";
import { newId } from "../../ids.ts";
import { requireId, requirePlainText } from "../../input.ts";
import type { Principal } from "../../results.ts";
import { inTransaction } from "../../stores/unit-of-work.ts";
import { currentUser, requireStepUpOrPassword, requireStepUpUnlessFirst, subjectOf, type FirstFactorProof } from "../account-factors.ts";

const MAX_LABEL_LENGTH = 64;
const DEFAULT_PASSKEY_LABEL = "Passkey";
/** Passkeys a user may hold: each is listed in every request's allowCredentials. */
const MAX_PASSKEYS = 10;

export interface PasskeyRegistration {
  readonly registrationId: string;
  /** `PublicKeyCredentialCreationOptionsJSON` for `navigator.credentials.create`. */
  readonly webauthnOptionsJson: string;
}

/**
 * A new passkey's creation options. Its WebAuthn challenge is stored for the user with the label, single use,
 * expiring as an MFA challenge does. Needs a step-up, or for the user's first factor the account's password.
 */
export async function startPasskeyRegistration(
  ctx: Context,
  checkCredentials: CredentialCheck,
  principal: Principal,
  label: string,
  proof?: FirstFactorProof,
): Promise<PasskeyRegistration> {
  const name = requirePlainText("label", label.trim()) || DEFAULT_PASSKEY_LABEL;
  if (name.length > MAX_LABEL_LENGTH) throw invalidArgument("label", `must be at most ${MAX_LABEL_LENGTH} characters`);
  const user = await currentUser(ctx, principal);
  await requireStepUpOrPassword(ctx, checkCredentials, principal, user, proof);
  const held = await ctx.stores.passkeys.list(user.id);
  if (held.length >= MAX_PASSKEYS) throw invalidArgument("label", `at most ${MAX_PASSKEYS} passkeys; remove one first`);
  const registrationId = newId(ctx.random);
  const webauthnOptionsJson = await newRegistrationOptions(ctx, { id: registrationId, userId: user.id, orgId: principal.orgId, label: name }, user, held);
  return { registrationId, webauthnOptionsJson };
}

/**
 * The authenticator's answer to StartPasskeyRegistration's options: it must sign that registration's challenge
 * (consumed here, whatever the answer) from a configured origin for the RP id. A credential any user holds
 * already is refused.
 */
export async function finishPasskeyRegistration(
  ctx: Context,
  principal: Principal,
  registrationId: string,
  responseJson: string,
  request?: RequestMeta,
): Promise<string> {
  const id = requireId("registration_id", registrationId);
  const response = requireRegistrationResponse("webauthn_response_json", responseJson);
  const user = await currentUser(ctx, principal);
  await requireStepUpUnlessFirst(ctx, principal, user);
  return inTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const ceremony = await tx.stores.webauthnChallenges.consume(id, "register", now);
    if (ceremony === null || ceremony.userId !== user.id) throw new GatehouseError("not_found", "registration not found");
    const credential = await verifyRegistration(tx.config.webauthn, response, ceremony.challenge);
    if (credential === null) throw invalidArgument("webauthn_response_json", "is not a passkey made for this registration");
    const factorId = newId(tx.random);
    try {
      await tx.stores.passkeys.create({ id: factorId, userId: user.id, label: ceremony.label, ...credential, createdAt: now, lastUsedAt: null });
    } catch (error) {
      if (isGatehouseError(error) && error.kind === "already_exists") throw invalidArgument("webauthn_response_json", "this passkey is registered already");
      throw error;
    }
    await recordAudit(tx, "factor.enrolled", subjectOf(principal, request), { factorId, kind: "webauthn" });
    return factorId;
  });
}
