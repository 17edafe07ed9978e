/**
 * Deterministic, realistic host names for the URL-policy bench: random brand-like labels under a
 * weighted mix of real TLDs, some with service subdomains. Policies hold a third wildcard entries.
 */
import type { AccessControl } from "@gatehouse/core";
import { prng } from "./stats.ts";

const SYLLABLES =
  "ab ac al an ar ba be bi bo bu ca ce co cu da de di do ex fa fi fo ga ge go ha he in ja jo ka ki la le li lo ma me mi mo na ne no nu on pa pe pi po ra re ri ro sa se si so ta te ti to tu va ve vi vo wa we xa ya yo za zo tech soft net cloud data shop mail bank news media labs hub ly fy io go app web sys corp group".split(
    " ",
  );
// Weighted roughly like the web: .com dominates.
const TLDS = [
  ...Array<string>(12).fill("com"),
  ..."net net org org io de de co.uk fr nl app dev info com.au co.jp ru br it es ca ch se pl in us eu tv me".split(" "),
];
const SUBDOMAINS = ["www", "mail", "cdn", "api", "login", "docs", "app", "static", "m", "portal", "eu", "us", "img", "auth"];

/** Random registrable domains such as `tenolabs.com` or `ka-mobi.co.uk`, and service subdomain labels such as `www`. */
function hostGenerator(seed: number) {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const word = () => Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(SYLLABLES)).join("");
  return {
    domain: () => (random() < 0.15 ? `${word()}-${word()}` : word()) + (random() < 0.05 ? String(Math.floor(random() * 100)) : "") + "." + pick(TLDS),
    subdomain: () => pick(SUBDOMAINS),
    pick,
    random,
  };
}

export type GeneratedPolicy = ReturnType<typeof generatePolicy>;

/**
 * `size` entries in stored (normalised) form, split evenly between allowed and blocked, a third of
 * each list `*.` wildcards; default action deny, wildcards on. With the policy: its exact host entries
 * (for hits), its wildcards' bases (for subdomain hits) and every base domain used (so misses avoid them).
 */
export function generatePolicy(size: number, seed = 0x5eed) {
  const gen = hostGenerator(seed);
  const used = new Set<string>();
  const exact: string[] = [];
  const wildBases: string[] = [];
  const allowed: string[] = [];
  const blocked: string[] = [];
  while (exact.length + wildBases.length < size) {
    const base = gen.domain();
    if (used.has(base)) continue;
    used.add(base);
    const index = exact.length + wildBases.length;
    const list = index % 2 === 0 ? allowed : blocked;
    if (index % 3 === 2) {
      wildBases.push(base);
      list.push(`*.${base}`);
    } else {
      const host = gen.random() < 0.4 ? `${gen.subdomain()}.${base}` : base;
      exact.push(host);
      list.push(host);
    }
  }
  const accessControl: AccessControl = { allowedDomains: allowed, blockedDomains: blocked, defaultAction: "deny", wildcardSupported: true };
  return { accessControl, exact, wildBases, used };
}

const PATHS = "/ /index.html /login /search?q=policy+engine&lang=en /a/b/c/d.png /api/v2/items/123?expand=owner /docs/guide#setup /watch?v=dQw4w9WgXcQ".split(
  " ",
);

/**
 * A fixed mix of inputs for a policy: exact hits, wildcard hits (apex and 1–2 label subdomains),
 * misses (fresh domains and subdomains of unlisted hosts), and a few odd spellings (upper case,
 * trailing dot, port, http, IP literal). The same seed gives the same mix at every policy size.
 */
export function generateCorpus(policy: GeneratedPolicy, count: number, seed = 0xc0ffee): string[] {
  const gen = hostGenerator(seed);
  const corpus: string[] = [];
  const scheme = () => (gen.random() < 0.9 ? "https" : "http");
  const path = () => gen.pick(PATHS);
  while (corpus.length < count) {
    const roll = gen.random();
    if (roll < 0.3 && policy.exact.length > 0) {
      corpus.push(`${scheme()}://${gen.pick(policy.exact)}${path()}`);
    } else if (roll < 0.6 && policy.wildBases.length > 0) {
      const base = gen.pick(policy.wildBases);
      const host = [...Array.from({ length: Math.floor(gen.random() * 3) }, gen.subdomain), base].join(".");
      corpus.push(`${scheme()}://${host}${path()}`);
    } else if (roll < 0.93) {
      let base = gen.domain();
      while (policy.used.has(base)) base = gen.domain();
      corpus.push(`${scheme()}://${gen.random() < 0.5 ? `${gen.subdomain()}.` : ""}${base}${path()}`);
    } else {
      const host = policy.exact.length > 0 ? gen.pick(policy.exact) : gen.domain();
      const ipLiteral = () => [223, 256, 256, 256].map((values, i) => Math.floor(gen.random() * values) + (i === 0 ? 1 : 0)).join(".");
      const odd = [() => `${host.toUpperCase()}/`, () => `${host}./path`, () => `${host}:8443/x?y=1`, () => `${ipLiteral()}/`];
      corpus.push(`https://${odd[Math.floor(gen.random() * 4)]!()}`);
    }
  }
  return corpus;
}
