export {
  compileExtensionRules,
  DOMAINS_PER_RULE,
  failClosedRules,
  GUARD_PATTERNS,
  MAX_DYNAMIC_RULES,
  RulePriority,
  rulesFor,
  TRAILING_DOT_PATTERN,
} from "./extension-rules.ts";
export type { DnrAction, DnrCondition, DnrResourceType, DnrRule, ExtensionRuleOptions, ExtensionRules, RuleOverflow } from "./extension-rules.ts";
