import { useState } from "react";
import type { ReactNode } from "react";
import type { MemberSummaryView } from "@gatehouse/contract";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { TextField } from "../../components/TextField.tsx";
import { formatMoment } from "../../format-time.ts";
import { useServices } from "../../services.tsx";
import { describeFactorKinds } from "./factor-words.ts";
import { MemberDevices } from "./MemberDevices.tsx";
import { RoleSelect } from "./RoleSelect.tsx";
import { useAdminAction } from "./use-admin-action.ts";

const roleWord = (role: string): string => (role === "admin" ? "Admin" : role === "member" ? "Member" : role);

/** One member: who, role, factor kinds, last seen; "Manage" opens what an admin can do to them. */
export function MemberRow(props: { readonly member: MemberSummaryView; readonly self: boolean; readonly reload: () => void }): ReactNode {
  const { member, self, reload } = props;
  const [open, setOpen] = useState(false);
  return (
    <li className="item member-item" data-testid="member">
      <div>
        <strong>{member.email}</strong>
        {self ? <span className="hint"> (you)</span> : null}
        <p className="hint">
          {roleWord(member.role)} · {describeFactorKinds(member.factorKinds)} · last signed in {formatMoment(member.lastSeenAt)}
        </p>
      </div>
      <Button variant="secondary" aria-expanded={open} aria-label={`Manage ${member.email}`} onClick={() => setOpen((value) => !value)}>
        Manage
      </Button>
      {open ? <MemberActions member={member} self={self} reload={reload} /> : null}
    </li>
  );
}

function MemberActions({ member, self, reload }: { readonly member: MemberSummaryView; readonly self: boolean; readonly reload: () => void }): ReactNode {
  const { admin } = useServices();
  const action = useAdminAction();
  const [role, setRole] = useState(member.role);
  const [reason, setReason] = useState("");
  const [confirmRemove, setConfirmRemove] = useState(false);
  const who = member.email;
  const off = action.busy !== null;

  return (
    <div className="stack member-actions" role="group" aria-label={`Manage ${who}`}>
      <div className="inline-form">
        <RoleSelect label={`Role of ${who}`} value={role} onChange={setRole} disabled={self} />
        <Button
          variant="secondary"
          disabled={off || self || role === member.role}
          busy={action.busy === "role"}
          busyLabel="Saving…"
          onClick={() =>
            void action
              .run(
                "role",
                "set-role",
                () => admin.setMemberRole(member.userId, role),
                () => `${who} is ${roleWord(role).toLowerCase()} now.`,
              )
              .then(reload)
          }
        >
          Change role
        </Button>
      </div>
      {self ? <p className="hint">Another admin changes your own role or removes you.</p> : null}
      <div className="row-actions">
        <Button
          variant="secondary"
          disabled={off}
          busy={action.busy === "sign-out"}
          busyLabel="Signing out…"
          onClick={() =>
            void action.run(
              "sign-out",
              "sign-out",
              () => admin.revokeUserSessions(member.userId),
              (count) => `${who} is signed out everywhere (${count === 1 ? "1 session" : `${count} sessions`} ended). Their next request is refused.`,
            )
          }
        >
          Sign out everywhere
        </Button>
        <Button
          variant="secondary"
          disabled={off}
          busy={action.busy === "reset-password"}
          busyLabel="Sending…"
          onClick={() =>
            void action.run(
              "reset-password",
              "password-reset",
              () => admin.sendPasswordReset(member.userId),
              () => `A password reset link was emailed to ${who}.`,
            )
          }
        >
          Send password reset
        </Button>
      </div>
      <div className="stack subsection">
        <TextField
          label={`Reason for resetting the second factors of ${who}`}
          name="reset-reason"
          value={reason}
          onChange={setReason}
          maxLength={500}
          hint="Removes their authenticator apps, passkeys and recovery codes, unlocks their phone, and signs them out everywhere. The audit trail records the reason."
        />
        <div>
          <Button
            variant="secondary"
            disabled={off || reason.trim() === ""}
            busy={action.busy === "reset-factors"}
            busyLabel="Resetting…"
            onClick={() =>
              void action
                .run(
                  "reset-factors",
                  "reset-factors",
                  () => admin.resetUserFactors(member.userId, reason.trim()),
                  () => `The second factors of ${who} are reset; they set one up at their next sign-in.`,
                )
                .then((ok) => {
                  if (ok) setReason("");
                  reload();
                })
            }
          >
            Reset second factors
          </Button>
        </div>
      </div>
      <MemberDevices member={member} />
      <div className="row-actions subsection">
        {confirmRemove ? (
          <>
            <p>Remove {who} from the organization? Their sessions here end at once.</p>
            <Button
              variant="primary"
              disabled={off}
              busy={action.busy === "remove"}
              busyLabel="Removing…"
              onClick={() =>
                void action
                  .run(
                    "remove",
                    "remove",
                    () => admin.removeMember(member.userId),
                    () => `${who} is removed.`,
                  )
                  .then(reload)
              }
            >
              Yes, remove {who}
            </Button>
            <Button variant="ghost" onClick={() => setConfirmRemove(false)} disabled={off}>
              Keep
            </Button>
          </>
        ) : (
          <Button variant="ghost" disabled={off || self} onClick={() => setConfirmRemove(true)}>
            Remove from organization
          </Button>
        )}
      </div>
      <LiveMessage message={action.notice} tone="success" testId="member-notice" />
      <FormAlert message={action.problem} alertRef={null} />
    </div>
  );
}
