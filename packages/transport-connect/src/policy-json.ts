/**
 * The snake_case JSON shape of a browser policy, shared by the HTTP routes and the CLI. Parsing
 * refuses unknown keys and wrong types with a message naming the key; value rules (entries,
 * actions) are the core's `validateBrowserPolicy`.
 */
import { invalidArgument, type BrowserPolicy, type BrowserPolicyInput } from "@gatehouse/core";

export interface AccessControlJson {
  allowed_domains: string[];
  blocked_domains: string[];
  default_action: string;
  wildcard_supported: boolean;
}

export interface ActionRestrictionsJson {
  allowed_actions: string[];
  read_only_mode: boolean;
}

export interface BrowserPolicyJson {
  access_control: AccessControlJson;
  action_restrictions: ActionRestrictionsJson;
}

export function policyToJson(policy: BrowserPolicy): BrowserPolicyJson {
  const { accessControl: ac, actionRestrictions: ar } = policy;
  return {
    access_control: {
      allowed_domains: [...ac.allowedDomains],
      blocked_domains: [...ac.blockedDomains],
      default_action: ac.defaultAction,
      wildcard_supported: ac.wildcardSupported,
    },
    action_restrictions: { allowed_actions: [...ar.allowedActions], read_only_mode: ar.readOnlyMode },
  };
}

type Json = Record<string, unknown>;

function object(value: unknown, path: string, keys: readonly string[]): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidArgument(path, "must be a JSON object");
  const unknown = Object.keys(value).filter((key) => !keys.includes(key));
  if (unknown.length > 0) throw invalidArgument(`${path}.${unknown[0]}`, `unknown key (expected one of: ${keys.join(", ")})`);
  return value as Json;
}

function field<T>(source: Json, key: string, path: string, check: (v: unknown) => v is T, expected: string): T {
  const value = source[key];
  if (!check(value)) throw invalidArgument(`${path}.${key}`, value === undefined ? "is required" : `must be ${expected}`);
  return value;
}

const isBoolean = (v: unknown): v is boolean => typeof v === "boolean";
const isString = (v: unknown): v is string => typeof v === "string";
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

/** Both sections are required: a partial policy would silently reset the other half. */
export function policyInputFromJson(value: unknown): BrowserPolicyInput {
  const root = object(value, "policy", ["access_control", "action_restrictions"]);
  const ac = object(root.access_control, "access_control", ["allowed_domains", "blocked_domains", "default_action", "wildcard_supported"]);
  const ar = object(root.action_restrictions, "action_restrictions", ["allowed_actions", "read_only_mode"]);
  return {
    accessControl: {
      allowedDomains: field(ac, "allowed_domains", "access_control", isStringArray, "a list of strings"),
      blockedDomains: field(ac, "blocked_domains", "access_control", isStringArray, "a list of strings"),
      defaultAction: field(ac, "default_action", "access_control", isString, '"allow" or "deny"'),
      wildcardSupported: field(ac, "wildcard_supported", "access_control", isBoolean, "true or false"),
    },
    actionRestrictions: {
      allowedActions: field(ar, "allowed_actions", "action_restrictions", isStringArray, "a list of strings"),
      readOnlyMode: field(ar, "read_only_mode", "action_restrictions", isBoolean, "true or false"),
    },
  };
}
