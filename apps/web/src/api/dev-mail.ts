/** The newest message of the dev mailbox for one address: what the dev helper shows. */
export interface DevMail {
  readonly subject: string;
  readonly link: string | null;
}

/**
 * The dev-only mailbox route (`GET /api/dev/mail`). It answers 404 unless the server runs in dev mode,
 * so the helper appears only after a 200; any other answer reads as "no dev mailbox".
 */
export async function fetchDevMail(
  fetchImpl: (url: string, init: RequestInit) => Promise<Response>,
  email: string,
  signal?: AbortSignal,
): Promise<DevMail[] | null> {
  try {
    const response = await fetchImpl(`/api/dev/mail?${new URLSearchParams({ to: email }).toString()}`, {
      method: "GET",
      ...(signal === undefined ? {} : { signal }),
    });
    if (response.status !== 200) return null;
    const body: unknown = await response.json();
    if (typeof body !== "object" || body === null || !("messages" in body) || !Array.isArray(body.messages)) return null;
    return body.messages.flatMap((message: unknown): DevMail[] => {
      if (typeof message !== "object" || message === null || !("subject" in message) || typeof message.subject !== "string") return [];
      const link = "link" in message && typeof message.link === "string" ? message.link : null;
      return [{ subject: message.subject, link }];
    });
  } catch {
    return null;
  }
}
