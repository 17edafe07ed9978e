import type { EpochMs } from "../model.ts";
import type { RandomSource } from "../ports.ts";

const COUNTER_BITS = 12n;

/**
 * Audit event ids: UUIDv7 (RFC 9562) whose 48-bit time and 12-bit counter form one value that only
 * grows within a Gatehouse instance (method 1, "fixed-length dedicated counter"). Events of one
 * millisecond, such as the several one VerifyMFA records in its transaction, are listed newest
 * first by id; so their ids must sort in the order they were recorded, which random ids do not.
 * The 62 random bits keep ids of different instances apart.
 */
export function createAuditIdSource(random: RandomSource): (at: EpochMs) => string {
  let last = -1n;
  return (at) => {
    // Past 4096 ids in one millisecond (or when the clock steps back) the time field runs ahead: order wins over accuracy.
    last = BigInt(at) << COUNTER_BITS > last ? BigInt(at) << COUNTER_BITS : last + 1n;
    const head = last.toString(16).padStart(15, "0");
    const tail = random.bytes(8);
    tail[0] = (tail[0]! & 0x3f) | 0x80;
    const rest = Buffer.from(tail).toString("hex");
    return `${head.slice(0, 8)}-${head.slice(8, 12)}-7${head.slice(12, 15)}-${rest.slice(0, 4)}-${rest.slice(4)}`;
  };
}
