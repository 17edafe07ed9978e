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
