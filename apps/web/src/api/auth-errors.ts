import { Code, ConnectError } from "@connectrpc/connect";

/** Which form the error came from; the same code reads differently on each. */
export type AuthStep = "login" | "register" | "phone" | "otp";

const UNAUTHENTICATED: Record<AuthStep, string> = {
  login: "The email or password is incorrect.",
  register: "Registration was refused.",
  phone: "This sign-in attempt has expired. Start again.",
  otp: "That code is not valid, or the sign-in attempt has expired.",
};

/**
 * A message for the user from a failed AuthService call. Server messages are shown for input
 * errors (they name the field) and rate limits (they say when to retry); they never carry secrets.
 */
export function describeAuthError(error: unknown, step: AuthStep): string {
  const connectError = ConnectError.from(error);
  const serverMessage = connectError.rawMessage;
  switch (connectError.code) {
    case Code.Unauthenticated:
      return UNAUTHENTICATED[step];
    case Code.PermissionDenied:
      return step === "login" ? "This account is not a member of that organization." : "You are not allowed to do this.";
    case Code.FailedPrecondition:
      return step === "otp" ? "The code has expired. Sign in again to get a new one." : serverMessage;
    case Code.AlreadyExists:
      return "An account with this email already exists.";
    case Code.InvalidArgument:
    case Code.ResourceExhausted:
      return serverMessage;
    case Code.Unavailable:
    case Code.Unknown:
    case Code.Internal:
    case Code.DeadlineExceeded:
    case Code.Canceled:
      return "The service could not be reached. Check your connection and try again.";
    default:
      return serverMessage === "" ? "Something went wrong. Try again." : serverMessage;
  }
}
