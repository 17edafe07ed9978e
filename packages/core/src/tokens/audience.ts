import { invalidArgument } from "../errors.ts";

const MAX_AUDIENCE_LENGTH = 2048;

/** An absolute http(s) or urn URI without a fragment, as RFC 9068 and RFC 8707 ask of an audience. */
export function isAudience(audience: string): boolean {
  const parsed = audience.length <= MAX_AUDIENCE_LENGTH ? URL.parse(audience) : null;
  return parsed !== null && parsed.hash === "" && ["https:", "http:", "urn:"].includes(parsed.protocol) && !/\s/.test(audience);
}

export function requireAudience(audience: string): void {
  if (audience === "") throw invalidArgument("audience", "is required");
  if (!isAudience(audience)) throw invalidArgument("audience", "must be an absolute https, http or urn URI without a fragment");
}
