import { timestampMs, type Timestamp } from "@bufbuild/protobuf/wkt";

/** A timestamp the message must carry: an answer without it is malformed, like an empty oneof. */
export function requiredMs(timestamp: Timestamp | undefined, field: string): number {
  if (timestamp === undefined) throw new Error(`The server's answer has no ${field}.`);
  return timestampMs(timestamp);
}

export const optionalMs = (timestamp: Timestamp | undefined): number | null => (timestamp === undefined ? null : timestampMs(timestamp));
