import { useState } from "react";
import type { FormEvent, ReactNode } from "react";
import type { MemberSummaryView } from "@gatehouse/contract";
import type { InvitationView } from "../../api/admin-client.ts";
import { describeAdminError } from "../../api/admin-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { EmailField } from "../../components/TextField.tsx";
import { formatMoment } from "../../format-time.ts";
import { useServices, useSession } from "../../services.tsx";
import { useStepUpGuard } from "../account/use-step-up.tsx";
import { useLoaded } from "../account/use-loaded.ts";
import { describeFactorKinds } from "./factor-words.ts";
import { MemberRow } from "./MemberRow.tsx";
import { RoleSelect } from "./RoleSelect.tsx";
import { useAdminAction } from "./use-admin-action.ts";

/** What AddMember's status means, in words; a status this client does not know is shown as the server names it. */
function invitedWords(email: string, status: string): string {
  switch (status) {
    case "added":
      return `${email} is a member now; they were told by email.`;
    case "invited":
      return `An invitation was emailed to ${email}. They join once they accept it.`;
    default:
      return `${email}: ${status}.`;
  }
}

/** Members and open invitations: invite, resend, revoke; each member's role, sign-out, reset and removal. */
export function MembersSection(): ReactNode {
  const { admin } = useServices();
  const guard = useStepUpGuard();
  const session = useSession();
  const members = useLoaded(
    () => guard(() => admin.listMembers()),
    (error) => describeAdminError(error, "load").message,
  );
  const invitations = useLoaded(
    () => guard(() => admin.listInvitations()),
    (error) => describeAdminError(error, "load").message,
  );
  const reload = (): void => {
    members.reload();
    invitations.reload();
  };
  return (
    <>
      <InviteForm onDone={reload} />
      <Invitations loaded={invitations.data} problem={invitations.problem} reload={reload} />
      <section className="card stack" aria-labelledby="members-heading" data-testid="members">
        <h2 id="members-heading">Members</h2>
        {members.data === null && members.problem === null ? <p>Loading…</p> : null}
        <FormAlert message={members.problem} alertRef={null} />
        <ul className="item-list" aria-label="Members">
          {(members.data ?? []).map((member: MemberSummaryView) => (
            <MemberRow key={member.userId} member={member} self={member.userId === session?.userId} reload={reload} />
          ))}
        </ul>
        <p className="hint">Second factors are shown by kind only ({describeFactorKinds(["webauthn", "totp", "sms", "recovery_code"])}).</p>
      </section>
    </>
  );
}

function InviteForm({ onDone }: { readonly onDone: () => void }): ReactNode {
  const { admin } = useServices();
  const action = useAdminAction();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("member");
  const [fieldError, setFieldError] = useState<string | null>(null);

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const address = email.trim();
    if (!/^[^\s@]+@[^\s@]+$/.test(address)) {
      setFieldError("Enter an email address such as name@example.com.");
      return;
    }
    setFieldError(null);
    const ok = await action.run(
      "invite",
      "invite",
      () => admin.addMember(address, role),
      ({ status }) => invitedWords(address, status),
    );
    if (ok) {
      setEmail("");
      onDone();
    }
  };

  return (
    <section className="card stack" aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite someone</h2>
      <form className="stack" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="invite-heading">
        <EmailField value={email} onChange={setEmail} error={fieldError} autoComplete="off" />
        <RoleSelect label="Role" value={role} onChange={setRole} />
        <FormAlert message={action.problem} alertRef={null} />
        <LiveMessage message={action.notice} tone="success" testId="invite-notice" />
        <div>
          <Button type="submit" busy={action.busy === "invite"} busyLabel="Inviting…">
            Invite
          </Button>
        </div>
      </form>
    </section>
  );
}

function Invitations(props: { readonly loaded: readonly InvitationView[] | null; readonly problem: string | null; readonly reload: () => void }): ReactNode {
  const { loaded, problem, reload } = props;
  const { admin } = useServices();
  const action = useAdminAction();
  const list = loaded ?? [];
  return (
    <section className="card stack" aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Open invitations</h2>
      {loaded !== null && list.length === 0 ? <p className="hint">No invitation is waiting.</p> : null}
      <ul className="item-list" aria-label="Open invitations">
        {list.map((invitation) => (
          <li className="item" key={invitation.invitationId}>
            <div>
              <strong>{invitation.email}</strong>
              <p className="hint">
                {invitation.role === "admin" ? "Admin" : "Member"} · sent {formatMoment(invitation.createdAt)} · expires {formatMoment(invitation.expiresAt)}
              </p>
            </div>
            <div className="row-actions">
              <Button
                variant="secondary"
                busy={action.busy === `resend-${invitation.invitationId}`}
                busyLabel="Sending…"
                disabled={action.busy !== null}
                aria-label={`Resend the invitation to ${invitation.email}`}
                onClick={() =>
                  void action
                    .run(
                      `resend-${invitation.invitationId}`,
                      "invite",
                      () => admin.addMember(invitation.email, invitation.role),
                      () => `A new invitation was emailed to ${invitation.email}; the earlier link no longer works.`,
                    )
                    .then(reload)
                }
              >
                Resend
              </Button>
              <Button
                variant="ghost"
                busy={action.busy === `revoke-${invitation.invitationId}`}
                busyLabel="Revoking…"
                disabled={action.busy !== null}
                aria-label={`Revoke the invitation to ${invitation.email}`}
                onClick={() =>
                  void action
                    .run(
                      `revoke-${invitation.invitationId}`,
                      "revoke-invitation",
                      () => admin.revokeInvitation(invitation.invitationId),
                      () => `The invitation to ${invitation.email} is revoked: its link no longer works.`,
                    )
                    .then(reload)
                }
              >
                Revoke
              </Button>
            </div>
          </li>
        ))}
      </ul>
      <LiveMessage message={action.notice} tone="success" />
      <FormAlert message={action.problem ?? problem} alertRef={null} />
    </section>
  );
}
