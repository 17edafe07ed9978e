export { CHECK_PAGE, failClosedRules, NAVIGATIONS, readOnlyRule, RulePriority, serverOriginRule } from "./dnr.ts";
export type { DnrAction, DnrCondition, DnrResourceType, DnrRule } from "./dnr.ts";
export {
  compileExtensionRules,
  DOMAINS_PER_RULE,
  GUARD_PATTERNS,
  MAX_DYNAMIC_RULES,
  MAX_REGEX_RULES,
  PUNYCODE_PATTERN,
  rulesFor,
  TRAILING_DOT_PATTERN,
} from "./extension-rules.ts";
export type { ExtensionRuleOptions, ExtensionRules, RuleOverflow } from "./extension-rules.ts";
export { createExtensionPolicies, withExtensionSettings } from "./extension-policy.ts";
export type { CompiledExtensionPolicy, ExtensionPolicy } from "./extension-policy.ts";
export { chromePolicyFor, GATEHOUSE_EXTENSION_ID, WEB_STORE_UPDATE_URL } from "./chrome-policy.ts";
export type { ChromePolicyInput } from "./chrome-policy.ts";
export { extensionGate, listConnectedBrowsers, recordExtensionPoll } from "./connected-browsers.ts";
export type { ConnectedBrowser } from "./connected-browsers.ts";
export { CONNECTED_WITHIN_MS, EXTENSION_VERSION_HEADER, parseExtensionVersion } from "../records/extension-session.ts";
export type { ExtensionSessionRecord } from "../records/extension-session.ts";
export { MAX_ENFORCEMENT_EVENTS_PER_BATCH } from "./enforcement-reports.ts";
export type { EnforcementEventInput, EnforcementReportOutcome, ReportEnforcementEventsInput } from "./enforcement-reports.ts";
