/**
 * The services the account page calls with an access JWT (the server's WEB_SERVICES, docs/integration.md),
 * read from the meta tag the server puts in index.html. Anything malformed there reads as no service.
 */
export interface ConnectedService {
  readonly name: string;
  /** The registered audience of its JWTs. */
  readonly audience: string;
  readonly method: "GET" | "POST";
  readonly url: string;
}

export function readConnectedServices(doc: Pick<Document, "querySelector">): readonly ConnectedService[] {
  const content = doc.querySelector('meta[name="gatehouse-services"]')?.getAttribute("content");
  if (content === null || content === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return [];
  }
  return Array.isArray(parsed) ? parsed.filter(isConnectedService) : [];
}

function isConnectedService(value: unknown): value is ConnectedService {
  if (typeof value !== "object" || value === null) return false;
  const { name, audience, method, url } = value as Record<string, unknown>;
  return (
    typeof name === "string" &&
    name !== "" &&
    typeof audience === "string" &&
    audience !== "" &&
    (method === "GET" || method === "POST") &&
    typeof url === "string" &&
    URL.canParse(url)
  );
}
