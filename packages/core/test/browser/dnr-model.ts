/**
 * A model of how Chrome's declarativeNetRequest decides a navigation, for the rule compiler's unit tests: the
 * real Chromium differential test (apps/extension) checks that the model and the browser agree.
 *
 * Modelled: `urlFilter` with a leading `|` anchor, literals and `^` (any character but a letter, digit, "_", "-",
 * ".", "%", or the end); `regexFilter` (case-insensitive, as Chrome's default); `requestDomains` (the host or
 * any parent); the highest priority wins, allow before block before redirect on a tie; a redirect is a new request.
 * A name DNS cannot carry (a label over 63 octets, a name over
 * 253, RFC 1035) is never resolved, so that request cannot leave either: the rules leave those limits to DNS.
 */
import { CHECK_PAGE } from "../../src/browser/index.ts";
import type { DnrRule } from "../../src/browser/index.ts";

/** `checked`: sent to the extension's check page, whose answer is check-url's own. */
export type Outcome = "loaded" | "blocked" | "checked";

export function navigate(rules: readonly DnrRule[], url: string): Outcome {
  if (!resolvable(new URL(url).hostname)) return "blocked";
  let current = url;
  for (let hops = 0; hops < 5; hops++) {
    const winner = winningRule(rules, current);
    if (winner === undefined || winner.action.type === "allow") return "loaded";
    if (winner.action.type === "block") return "blocked";
    if (winner.action.redirect.regexSubstitution.startsWith(CHECK_PAGE)) return "checked";
    current = current.replace(regex(winner.condition.regexFilter ?? ""), winner.action.redirect.regexSubstitution.replace(/\\(\d)/g, "$$$1"));
  }
  return "blocked";
}

const ACTION_ORDER = { allow: 3, block: 2, redirect: 1 } as const;

function winningRule(rules: readonly DnrRule[], url: string): DnrRule | undefined {
  const request = { url: url.toLowerCase(), host: new URL(url).hostname };
  let best: DnrRule | undefined;
  for (const rule of rules) {
    if (
      best !== undefined &&
      (rule.priority < best.priority || (rule.priority === best.priority && ACTION_ORDER[rule.action.type] <= ACTION_ORDER[best.action.type]))
    )
      continue;
    if (matches(rule, request)) best = rule;
  }
  return best;
}

interface Request {
  /** Lower-cased: Chrome matches URL filters case-insensitively by default. */
  readonly url: string;
  readonly host: string;
}

const regexCache = new Map<string, RegExp>();

function regex(source: string): RegExp {
  let compiled = regexCache.get(source);
  if (compiled === undefined) regexCache.set(source, (compiled = new RegExp(source, "i")));
  return compiled;
}

function matches(rule: DnrRule, request: Request): boolean {
  const { urlFilter, regexFilter, requestDomains } = rule.condition;
  if (urlFilter !== undefined && !urlFilterMatches(urlFilter, request.url)) return false;
  if (requestDomains !== undefined && !requestDomains.some((domain) => request.host === domain || request.host.endsWith(`.${domain}`))) return false;
  if (regexFilter !== undefined && !regex(regexFilter).test(request.url)) return false;
  return true;
}

function urlFilterMatches(filter: string, url: string): boolean {
  const anchored = filter.startsWith("|");
  const body = anchored ? filter.slice(1).toLowerCase() : filter.toLowerCase();
  if (body.includes("*") || body.startsWith("|")) throw new Error(`the model does not handle ${filter}`);
  if (anchored) return matchesAt(body, url, 0);
  for (let start = 0; start < url.length; start++) if (matchesAt(body, url, start)) return true;
  return false;
}

function matchesAt(body: string, url: string, start: number): boolean {
  let at = start;
  for (const c of body) {
    if (c === "^") {
      if (at === url.length) continue;
      if (SEPARATOR_EXCLUDED.test(url[at]!)) return false;
      at++;
    } else if (url[at] !== c) {
      return false;
    } else {
      at++;
    }
  }
  return true;
}

const SEPARATOR_EXCLUDED = /[a-z0-9_.%-]/;

function resolvable(host: string): boolean {
  if (host.startsWith("[")) return true;
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  return name.length <= 253 && name.split(".").every((label) => label.length <= 63);
}
