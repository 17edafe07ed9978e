import { errorFactsFromJson, type ErrorKind } from "@gatehouse/contract";

/** A non-2xx answer from a JSON route, with what its `{"error": {…}}` body says when it has one. */
export class ApiError extends Error {
  readonly status: number;
  /** snake_case gRPC code name from the error body, or "unknown". */
  readonly code: string;
  /** The domain kind from the error body: what the page branches on; "unknown" when there is none. */
  readonly kind: ErrorKind | "unknown";

  constructor(status: number, code: string, kind: ErrorKind | "unknown", message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.kind = kind;
  }
}

/** Builds an ApiError from a failed response, tolerating bodies that are not the documented shape. */
export async function apiErrorFrom(response: Response): Promise<ApiError> {
  let code = "unknown";
  let message = `Request failed with status ${response.status}.`;
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON: keep the generic message.
  }
  if (typeof body === "object" && body !== null && "error" in body) {
    const error: unknown = body.error;
    if (typeof error === "object" && error !== null) {
      if ("code" in error && typeof error.code === "string") code = error.code;
      if ("message" in error && typeof error.message === "string" && error.message !== "") message = error.message;
    }
  }
  return new ApiError(response.status, code, errorFactsFromJson(body).kind, message);
}
