/**
 * Calls to another service that trusts Gatehouse's access JWTs (docs/integration.md). When that service
 * answers an RFC 9470 challenge (401, `WWW-Authenticate: Bearer error="insufficient_user_authentication"`),
 * the user steps up (StartStepUp, then VerifyMFA), a fresh JWT is issued for the stepped-up session, and the
 * call is sent again, once: a second challenge is the service's answer to show.
 */

/** What the service asked for: the ACR values it accepts and how recent the authentication must be, in seconds. */
export interface StepUpChallenge {
  readonly acrValues: readonly string[];
  readonly maxAgeSeconds: number | null;
}

export interface StepUpFetchDeps {
  /** A JWT for `audience` from the current session (AuthService.IssueAccessJwt). */
  readonly issueAccessJwt: (audience: string) => Promise<string>;
  /** Runs the step-up with the user; rejects when they give up (the call is then not sent again). */
  readonly stepUp: (challenge: StepUpChallenge) => Promise<void>;
  readonly fetch?: typeof globalThis.fetch;
}

/** `fetch` to a service whose audience is `audience`, with its bearer JWT, stepping up once if it asks. */
export type StepUpFetch = (audience: string, input: string | URL, init?: RequestInit) => Promise<Response>;

export function createStepUpFetch(deps: StepUpFetchDeps): StepUpFetch {
  const send = deps.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return async (audience, input, init = {}) => {
    const call = async (): Promise<Response> => {
      const headers = new Headers(init.headers);
      headers.set("authorization", `Bearer ${await deps.issueAccessJwt(audience)}`);
      return send(input, { ...init, headers });
    };
    const first = await call();
    const challenge = first.status === 401 ? stepUpChallengeOf(first.headers.get("www-authenticate")) : null;
    if (challenge === null) return first;
    // The first answer's body is not read: release it before the next call.
    await first.body?.cancel();
    await deps.stepUp(challenge);
    return call();
  };
}

/** The RFC 9470 challenge in a `WWW-Authenticate` value; null for any other (or none). */
export function stepUpChallengeOf(header: string | null): StepUpChallenge | null {
  if (header === null) return null;
  const params = bearerParams(header);
  if (params?.get("error") !== "insufficient_user_authentication") return null;
  const acrValues = (params.get("acr_values") ?? "").split(" ").filter((value) => value !== "");
  const maxAge = params.get("max_age");
  const maxAgeSeconds = maxAge !== undefined && /^\d{1,9}$/.test(maxAge) ? Number(maxAge) : null;
  return { acrValues, maxAgeSeconds };
}

/**
 * The auth-params of the `Bearer` challenge in a header value (RFC 9110 §11.6.1): `name=token` or
 * `name="quoted string"`, comma-separated. A header may hold several challenges; only Bearer's are read.
 * null when there is no Bearer challenge or its parameters do not parse.
 */
export function bearerParams(header: string): Map<string, string> | null {
  const start = /(?:^|,)\s*Bearer(?:\s+|\s*$|\s*,)/i.exec(header);
  if (start === null) return null;
  const params = new Map<string, string>();
  const param = /\s*([A-Za-z0-9_!#$%&'*+.^`|~-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([A-Za-z0-9_!#$%&'*+.^`|~/-]+))\s*(?:,|$)/y;
  param.lastIndex = start.index + start[0].length;
  while (param.lastIndex < header.length) {
    const before = param.lastIndex;
    const match = param.exec(header);
    if (match === null) {
      // The next challenge (`Scheme param=…`) ends Bearer's parameters.
      return /^\s*[A-Za-z0-9_!#$%&'*+.^`|~-]+\s/.test(header.slice(before)) ? params : null;
    }
    const name = match[1]!.toLowerCase();
    if (!params.has(name)) params.set(name, match[2] === undefined ? match[3]! : match[2].replace(/\\(.)/g, "$1"));
  }
  return params;
}
