/** Every command, one table per noun (audit.ts, user.ts, ...), and the order `gatehouse help` lists them in. */
import type { Command, CommandShape } from "./command.ts";
import { BACKUP, SERVE, SERVER_COMMANDS } from "./server.ts";
import { AUDIT_COMMANDS } from "./audit.ts";
import { RISK_EVALUATE, RISK_COMMANDS } from "./risk.ts";
import { CLIENT_COMMANDS } from "./client.ts";
import { KEYS_COMMANDS } from "./keys.ts";
import { OIDC_COMMANDS } from "./oidc.ts";
import { ORG_COMMANDS } from "./org.ts";
import { PLATFORM_COMMANDS } from "./platform.ts";
import { SMS_COMMANDS } from "./sms.ts";
import { USER_COMMANDS } from "./user.ts";
import { SESSION_COMMANDS } from "./session.ts";
import { DEVICE_COMMANDS } from "./device.ts";
import { FACTORS_COMMANDS } from "./factors.ts";
import { MEMBER_COMMANDS } from "./member.ts";
import { BROWSER_COMMANDS } from "./browser.ts";
import { POLICY_COMMANDS } from "./policy.ts";

/** The commands that run on the open database. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  ...SERVER_COMMANDS,
  ...AUDIT_COMMANDS,
  ...RISK_COMMANDS,
  ...CLIENT_COMMANDS,
  ...KEYS_COMMANDS,
  ...OIDC_COMMANDS,
  ...ORG_COMMANDS,
  ...PLATFORM_COMMANDS,
  ...SMS_COMMANDS,
  ...USER_COMMANDS,
  ...SESSION_COMMANDS,
  ...DEVICE_COMMANDS,
  ...FACTORS_COMMANDS,
  ...MEMBER_COMMANDS,
  ...BROWSER_COMMANDS,
  ...POLICY_COMMANDS,
};

/** Every command by name, in the order `gatehouse help` lists them. */
export const ALL_COMMANDS: ReadonlyMap<string, CommandShape> = new Map<string, CommandShape>([
  ["serve", SERVE],
  ["backup", BACKUP],
  ["risk evaluate", RISK_EVALUATE],
  ...Object.entries(COMMANDS).sort(([a], [b]) => (a === "migrate" ? -1 : b === "migrate" ? 1 : a.localeCompare(b))),
]);
