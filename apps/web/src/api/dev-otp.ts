/**
 * The dev-only OTP route (`GET /api/dev/mfa/otp`). It answers 404 unless the server runs in dev OTP
 * mode, so the page asks it first and shows the "Fill code" helper only after a 200.
 */
export async function fetchDevOtp(
  fetchImpl: (url: string, init: RequestInit) => Promise<Response>,
  challengeId: string,
  signal?: AbortSignal,
): Promise<string | null> {
  try {
    const query = new URLSearchParams({ challenge_id: challengeId });
    const response = await fetchImpl(`/api/dev/mfa/otp?${query.toString()}`, { method: "GET", ...(signal === undefined ? {} : { signal }) });
    if (response.status !== 200) return null;
    const body: unknown = await response.json();
    if (typeof body !== "object" || body === null || !("otp" in body)) return null;
    return typeof body.otp === "string" && /^\d{6}$/.test(body.otp) ? body.otp : null;
  } catch {
    return null;
  }
}
