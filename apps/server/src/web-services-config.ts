/**
 * WEB_SERVICES: the services the web client's account page calls with an access JWT ("Connected services",
 * docs/integration.md). Each one's origin is added to the client's `connect-src`, and the list is handed to
 * the client in index.html.
 */
export interface WebService {
  /** What the page calls it. */
  readonly name: string;
  /** The registered audience its JWTs name (`gatehouse client create --audience`). */
  readonly audience: string;
  readonly method: "GET" | "POST";
  /** The endpoint the page calls: an absolute http(s) URL. */
  readonly url: string;
}

const MAX_SERVICES = 20;
const MAX_NAME_LENGTH = 60;
const MAX_URI_LENGTH = 2048;

export function readWebServices(raw: string | undefined, problems: string[]): readonly WebService[] {
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    problems.push('WEB_SERVICES must be a JSON array of {"name", "audience", "method", "url"}');
    return [];
  }
  if (!Array.isArray(parsed) || parsed.length > MAX_SERVICES) {
    problems.push(`WEB_SERVICES must be a JSON array of at most ${MAX_SERVICES} services`);
    return [];
  }
  const services: WebService[] = [];
  parsed.forEach((entry: unknown, index) => {
    const problem = serviceProblem(entry);
    if (problem === null) services.push(entry as WebService);
    else problems.push(`WEB_SERVICES[${index}]: ${problem}`);
  });
  return services;
}

function serviceProblem(entry: unknown): string | null {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return 'must be an object {"name", "audience", "method", "url"}';
  const { name, audience, method, url, ...rest } = entry as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) return `has unknown field ${extra[0]}`;
  if (typeof name !== "string" || name.trim() === "" || name.length > MAX_NAME_LENGTH) return `name must be 1 to ${MAX_NAME_LENGTH} characters`;
  if (typeof audience !== "string" || !isUri(audience, ["https:", "http:", "urn:"]))
    return "audience must be an absolute https, http or urn URI without a fragment";
  if (method !== "GET" && method !== "POST") return "method must be GET or POST";
  if (typeof url !== "string" || !isUri(url, ["https:", "http:"])) return "url must be an absolute https or http URL without a fragment";
  return null;
}

function isUri(value: string, protocols: readonly string[]): boolean {
  const parsed = value.length <= MAX_URI_LENGTH ? URL.parse(value) : null;
  return parsed !== null && parsed.hash === "" && protocols.includes(parsed.protocol) && !/\s/.test(value);
}
