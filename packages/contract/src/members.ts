/** An org's members on the wire: AdminService.ListMembers, for the admin console. */
import { timestampFromMs, timestampMs, type Timestamp } from "@bufbuild/protobuf/wkt";

/** A member as the core lists one for admins (the core's `MemberSummary` has this shape); times are epoch ms. */
export interface MemberSummaryView {
  readonly userId: string;
  readonly email: string;
  readonly role: string;
  readonly factorKinds: readonly string[];
  readonly lastSeenAt: number | null;
}

/** Member's fields as the server answers with them. */
export interface WireMember {
  userId: string;
  email: string;
  role: string;
  factorKinds: string[];
  lastSeenAt?: Timestamp;
}

export function memberSummaryToWire(member: MemberSummaryView): WireMember {
  const { userId, email, role, factorKinds, lastSeenAt } = member;
  return { userId, email, role, factorKinds: [...factorKinds], ...(lastSeenAt === null ? {} : { lastSeenAt: timestampFromMs(lastSeenAt) }) };
}

export function memberSummaryFromWire(member: Readonly<WireMember>): MemberSummaryView {
  const { userId, email, role, factorKinds, lastSeenAt } = member;
  return { userId, email, role, factorKinds: [...factorKinds], lastSeenAt: lastSeenAt === undefined ? null : timestampMs(lastSeenAt) };
}
