/** The texts Gatehouse emails. Each names what happened and what to do; links come from email-links.ts. */
import type { EmailMessage } from "../ports.ts";

/** "24 hours", "30 minutes", "7 days": how long a link lasts, in the unit a reader expects. */
export function describeDuration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  const hours = Math.round(minutes / 60);
  if (hours <= 48) return `${hours} hours`;
  return `${Math.round(hours / 24)} days`;
}

export function verificationMessage(to: string, link: string, validFor: string): EmailMessage {
  return {
    to,
    subject: "Confirm your email address",
    text: `Someone (hopefully you) created a Gatehouse account with this address.\n\nConfirm it within ${validFor} by opening:\n${link}\n\nIf it was not you, ignore this message: the account cannot be used until the address is confirmed.\n`,
  };
}

export function alreadyRegisteredMessage(to: string, signInLink: string): EmailMessage {
  return {
    to,
    subject: "You already have an account",
    text: `Someone (hopefully you) tried to create a Gatehouse account with this address, which already has one.\n\nSign in, or choose "Forgot password?" there to reset your password:\n${signInLink}\n\nIf it was not you, you can ignore this message.\n`,
  };
}

export function invitationMessage(to: string, orgName: string, link: string, validFor: string): EmailMessage {
  return {
    to,
    subject: `You are invited to ${orgName}`,
    text: `You have been invited to join ${orgName} on Gatehouse.\n\nAccept within ${validFor} by opening the link below (with no account yet, you choose your password there; an account you already have keeps its password):\n${link}\n\nUntil you accept, the organization sees nothing of your account. If you did not expect this, ignore this message.\n`,
  };
}

export function addedToOrgMessage(to: string, orgName: string, signInLink: string): EmailMessage {
  return {
    to,
    subject: `You were added to ${orgName}`,
    text: `An administrator added your Gatehouse account to ${orgName}.\n\nSign in with the organization at:\n${signInLink}\n`,
  };
}

export function passwordResetMessage(to: string, link: string, validFor: string): EmailMessage {
  return {
    to,
    subject: "Reset your password",
    text: `Someone (hopefully you) asked to reset the password of your Gatehouse account.\n\nChoose a new password within ${validFor} by opening:\n${link}\n\nResetting signs you out everywhere, and your next sign-in asks for your second factor again.\nIf it was not you, ignore this message: your password stays as it is.\n`,
  };
}

export function unblockSignInMessage(to: string, link: string, validFor: string): EmailMessage {
  return {
    to,
    subject: "Sign-ins to your account were paused",
    text: `Many wrong passwords were tried for your Gatehouse account from places you have not signed in from, so sign-ins from new places are paused for a while. Your own devices and networks are not affected.\n\nIf you are trying to sign in from somewhere new, open this link within ${validFor}; it lets you sign in once, with your password and your second factor:\n${link}\n\nIf it was not you, you need do nothing: your password was not guessed. If your password is one you use elsewhere too, change it.\n`,
  };
}

/** What a new-location or new-device email says of the sign-in: each fact as the offline data gave it. */
export interface SignInFacts {
  /** "DE, network AS3320", or "an unknown place". */
  readonly place: string;
  /** "Firefox 133 on Windows 10 (desktop)", or "an unknown browser". */
  readonly device: string;
  /** ISO 8601, UTC. */
  readonly at: string;
  /** What is new: "a new location", "a new device" or both. */
  readonly what: string;
}

export function signInNoticeMessage(to: string, facts: SignInFacts, link: string, validFor: string): EmailMessage {
  return {
    to,
    subject: "New sign-in to your account",
    text: `Your Gatehouse account was signed in to from ${facts.what}.\n\nWhen: ${facts.at}\nWhere (approximately): ${facts.place}\nBrowser: ${facts.device}\n\nIf it was you, you need do nothing.\n\nIf it was not you, open this link within ${validFor} and choose "This wasn't me": every session of your account ends, your devices must pass the second factor again, and a password reset link is sent to you:\n${link}\n`,
  };
}
