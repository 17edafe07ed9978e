/** A non-2xx answer from a JSON route, with the `{"error":{"code","message"}}` body when there was one. */
export class ApiError extends Error {
  readonly status: number;
  /** snake_case gRPC code name from the error body, or "unknown". */
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

/** Builds an ApiError from a failed response, tolerating bodies that are not the documented shape. */
export async function apiErrorFrom(response: Response): Promise<ApiError> {
  let code = "unknown";
  let message = `Request failed with status ${response.status}.`;
  try {
    const body: unknown = await response.json();
    if (typeof body === "object" && body !== null && "error" in body) {
      const error: unknown = body.error;
      if (typeof error === "object" && error !== null) {
        if ("code" in error && typeof error.code === "string") code = error.code;
        if ("message" in error && typeof error.message === "string" && error.message !== "") message = error.message;
      }
    }
  } catch {
    // Not JSON: keep the generic message.
  }
  return new ApiError(response.status, code, message);
}
