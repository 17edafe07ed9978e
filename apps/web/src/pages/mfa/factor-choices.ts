import type { FactorKindView, MfaChallengeView, MfaFactorOptionView } from "@gatehouse/contract";
import type { AuthStep } from "../../api/auth-errors.ts";

/** How a factor kind is typed in: what the code field is called and what a well-formed code looks like. */
export interface CodeEntry {
  readonly heading: string;
  readonly fieldLabel: string;
  readonly hint: string;
  readonly inputMode: "numeric" | "text";
  readonly maxLength: number;
  readonly autoComplete: "one-time-code" | "off";
  /** Checked before sending, so a typo does not spend one of the challenge's attempts. */
  readonly wellFormed: (code: string) => boolean;
  readonly malformed: string;
}

/**
 * How a factor is completed: `sms`, the texted code on the SMS step (its resend, its dev helper);
 * `code`, a code the user already holds, typed as `entry` says; `passkey`, the browser's passkey prompt,
 * opened by the choice itself (no form of its own). MfaStep renders one form per type.
 */
export type FactorForm = { readonly type: "sms" } | { readonly type: "code"; readonly entry: CodeEntry } | { readonly type: "passkey" };

/** One way to complete a challenge: its button's name, its form, and how its refusals are worded. */
export interface FactorChoice {
  readonly choose: string;
  /** The choice's button while it works: sending the text, waiting for the passkey. */
  readonly busy: string;
  readonly form: FactorForm;
  readonly errorStep: AuthStep;
}

const SIX_DIGITS = /^\d{6}$/;
/** Sixteen letters or digits, in groups or not: the server normalises case, spaces and dashes. */
const RECOVERY_CODE = /^[A-Za-z0-9]{16}$/;

/**
 * The kinds the code step offers, and their wording. A kind the server lists but this table does not
 * name is not offered: a new kind (passkeys) is one entry here and, for a new form type, its form in MfaStep.
 */
export const FACTOR_CHOICES: Readonly<Partial<Record<FactorKindView, FactorChoice>>> = {
  webauthn: { choose: "Use a passkey", busy: "Waiting for your passkey…", errorStep: "passkey", form: { type: "passkey" } },
  totp: {
    choose: "Use your authenticator app",
    busy: "Opening…",
    errorStep: "app-code",
    form: {
      type: "code",
      entry: {
        heading: "Enter the code from your authenticator app",
        fieldLabel: "Authenticator app code",
        hint: "The 6-digit code your app shows for Gatehouse now.",
        inputMode: "numeric",
        maxLength: 6,
        autoComplete: "one-time-code",
        wellFormed: (code) => SIX_DIGITS.test(code.replace(/\s/g, "")),
        malformed: "Enter the 6-digit code your authenticator app shows.",
      },
    },
  },
  sms: { choose: "Text me a code", busy: "Sending…", errorStep: "otp", form: { type: "sms" } },
  recovery_code: {
    choose: "Use a recovery code",
    busy: "Opening…",
    errorStep: "recovery-code",
    form: {
      type: "code",
      entry: {
        heading: "Enter a recovery code",
        fieldLabel: "Recovery code",
        hint: "One of the codes you saved, like abcd-efgh-jkmn-pqrs. Each code works once.",
        inputMode: "text",
        maxLength: 40,
        autoComplete: "off",
        wellFormed: (code) => RECOVERY_CODE.test(code.replace(/[\s-]/g, "")),
        malformed: "Enter a recovery code: 16 letters and digits, like abcd-efgh-jkmn-pqrs.",
      },
    },
  },
};

/** A factor the server listed, with how this client offers it. */
export interface OfferedFactor extends MfaFactorOptionView {
  readonly choice: FactorChoice;
}

/** The server's factors this client can offer, in the server's order (strongest first). */
export function offeredFactors(options: readonly MfaFactorOptionView[]): OfferedFactor[] {
  return options.flatMap((option) => {
    const choice = FACTOR_CHOICES[option.kind];
    return choice === undefined ? [] : [{ ...option, choice }];
  });
}

/**
 * The factor whose form opens first: SMS when its code is already on its way, else the strongest
 * when it is a code to type. Null: the list of choices, so no text message goes out unasked and the
 * passkey prompt opens only when the user asks for it.
 */
export function initialFactor(offered: readonly OfferedFactor[], smsSent: boolean): FactorKindView | null {
  if (smsSent && offered.some((factor) => factor.kind === "sms")) return "sms";
  const strongest = offered[0];
  return strongest !== undefined && strongest.choice.form.type === "code" ? strongest.kind : null;
}

/** Whether the server texted a code with this challenge: it does when SMS is the user's only factor. */
export const smsSentWith = (challenge: MfaChallengeView): boolean => challenge.factors.length === 1 && challenge.factors[0]?.kind === "sms";
