export { checkUrl, MAX_URL_LENGTH, normalizeUserInput } from "./check-url.ts";
export { compileAccessControl, HostBits, listingOf } from "./compile.ts";
export type { CompiledAccessControl, CompileOptions, HostListing, HostListName, SkippedEntry } from "./compile.ts";
export { formatEntry, MAX_ENTRY_LENGTH, normalizeEntry } from "./entries.ts";
export type { EntryOptions, EntryResult, PolicyEntry } from "./entries.ts";
export { hostKey, hostKeyOf } from "./host-key.ts";
export type { HostHash, HostLookup } from "./host-table.ts";
export type { HostKey, HostKeyResult, InvalidHost } from "./host-key.ts";
export { PolicyCache, type CachedPolicy } from "./policy-cache.ts";
export { BROWSER_ACTIONS, DEFAULT_ACTIONS, DEFAULT_BROWSER_POLICY } from "./types.ts";
export type {
  AccessControl,
  ActionRestrictions,
  BrowserAction,
  BrowserPolicy,
  BrowserPolicyInput,
  DefaultAction,
  UrlDecision,
  UrlReasonCode,
} from "./types.ts";
export { MAX_LIST_ENTRIES, validateBrowserPolicy, validateBrowserPolicyInSlices } from "./validate-policy.ts";
