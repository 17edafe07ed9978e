/**
 * The request-body bytes one process holds at once, across every connection and protocol. A body reserves
 * its declared length (or its method's cap when it declares none) before it is read, and gives it back when
 * it has been read or refused; a body that does not fit is refused at once, so a flood of large bodies
 * costs the server a refusal each, never the memory.
 */
export interface BodyBudget {
  /** Reserves `bytes`; returns the release (idempotent), or null when they do not fit. */
  reserve(bytes: number): (() => void) | null;
  /** Bytes reserved now. */
  readonly inFlight: number;
}

export function createBodyBudget(maxBytes: number): BodyBudget {
  let inFlight = 0;
  return {
    reserve(bytes) {
      if (inFlight + bytes > maxBytes) return null;
      inFlight += bytes;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inFlight -= bytes;
      };
    },
    get inFlight() {
      return inFlight;
    },
  };
}
