/**
 * The PHC string format (github.com/P-H-C/phc-string-format):
 * `$<id>$v=<version>$<param>=<value>,…$<salt>$<hash>`, salt and hash in standard base64 without
 * padding. Only the shape our hashes use is accepted; anything else parses to null.
 */
export interface PhcString {
  readonly id: string;
  readonly version: number;
  /** Decimal parameters by name, in any order, each once. */
  readonly params: ReadonlyMap<string, number>;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

const ID = /^[a-z0-9-]{1,32}$/;
const PARAM = /^([a-z0-9-]{1,32})=(0|[1-9]\d{0,9})$/;
const VERSION = /^v=(0|[1-9]\d{0,9})$/;
const BASE64 = /^[A-Za-z0-9+/]+$/;

export function toUnpaddedBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64").replace(/=+$/, "");
}

/** Strict decoding: only canonical unpadded standard base64 (re-encoding gives the same text). */
function fromUnpaddedBase64(text: string): Buffer | null {
  if (!BASE64.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, "base64");
  return toUnpaddedBase64(bytes) === text ? bytes : null;
}

export function formatPhc(phc: PhcString): string {
  const params = [...phc.params].map(([name, value]) => `${name}=${value}`).join(",");
  return `$${phc.id}$v=${phc.version}$${params}$${toUnpaddedBase64(phc.salt)}$${toUnpaddedBase64(phc.hash)}`;
}

export function parsePhc(text: string): PhcString | null {
  const parts = text.split("$");
  if (parts.length !== 6 || parts[0] !== "") return null;
  const [, id, versionText, paramsText, saltText, hashText] = parts as [string, string, string, string, string, string];
  const version = VERSION.exec(versionText);
  if (!ID.test(id) || version === null) return null;
  const params = new Map<string, number>();
  for (const pair of paramsText.split(",")) {
    const match = PARAM.exec(pair);
    if (match === null || params.has(match[1]!)) return null;
    params.set(match[1]!, Number(match[2]));
  }
  const salt = fromUnpaddedBase64(saltText);
  const hash = fromUnpaddedBase64(hashText);
  if (salt === null || hash === null) return null;
  return { id, version: Number(version[1]), params, salt, hash };
}
