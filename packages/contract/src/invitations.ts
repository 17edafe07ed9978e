/** Invitations on the wire: AdminService.AddMember's answer and ListInvitations. */
import { timestampFromMs, type Timestamp } from "@bufbuild/protobuf/wkt";

/** An invitation as the core gives it to an admin (the core's `InvitationView` has this shape): never its token. */
export interface StoredInvitation {
  readonly id: string;
  readonly orgId: string;
  readonly email: string;
  readonly role: string;
  readonly invitedBy: string | null;
  readonly expiresAt: number;
  readonly createdAt: number;
}

/** Invitation's fields as the server answers with them. */
export interface WireInvitation {
  invitationId: string;
  orgId: string;
  email: string;
  role: string;
  invitedBy: string;
  createdAt: Timestamp;
  expiresAt: Timestamp;
}

export function invitationToWire(invitation: StoredInvitation): WireInvitation {
  return {
    invitationId: invitation.id,
    orgId: invitation.orgId,
    email: invitation.email,
    role: invitation.role,
    invitedBy: invitation.invitedBy ?? "",
    createdAt: timestampFromMs(invitation.createdAt),
    expiresAt: timestampFromMs(invitation.expiresAt),
  };
}

/** The core's AddMember outcome. */
export type StoredAddMemberResult =
  | { readonly status: "added"; readonly membership: { readonly orgId: string; readonly userId: string; readonly role: string } }
  | { readonly status: "invited"; readonly invitation: StoredInvitation };

/** AddMemberResponse's fields: `user_id` for an added member, `invitation_id` for an invitation. */
export function addMemberResultToWire(result: StoredAddMemberResult): { orgId: string; userId: string; role: string; status: string; invitationId: string } {
  if (result.status === "added") return { ...result.membership, status: "added", invitationId: "" };
  const { invitation } = result;
  return { orgId: invitation.orgId, userId: "", role: invitation.role, status: "invited", invitationId: invitation.id };
}
