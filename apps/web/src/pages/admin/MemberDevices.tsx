import type { ReactNode } from "react";
import type { MemberSummaryView } from "@gatehouse/contract";
import type { MemberDeviceView } from "../../api/admin-client.ts";
import { describeAdminError } from "../../api/admin-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { formatMoment } from "../../format-time.ts";
import { useServices } from "../../services.tsx";
import { useLoaded } from "../account/use-loaded.ts";
import { useStepUpGuard } from "../account/use-step-up.tsx";
import { useAdminAction } from "./use-admin-action.ts";

const trustOf = (device: MemberDeviceView, now: number): string =>
  device.trusted && device.trustedUntil !== null && device.trustedUntil > now ? `trusted until ${formatMoment(device.trustedUntil)}` : "not trusted";

/** A member's devices in the org, never by fingerprint: when first and last seen, and their trust; revoke one. */
export function MemberDevices({ member }: { readonly member: MemberSummaryView }): ReactNode {
  const { admin } = useServices();
  const guard = useStepUpGuard();
  const action = useAdminAction();
  const loaded = useLoaded(
    () => guard(() => admin.listUserDevices(member.userId)),
    (error) => describeAdminError(error, "load").message,
  );
  const now = Date.now();
  const devices = loaded.data ?? [];
  return (
    <div className="stack subsection">
      <h3>Devices of {member.email}</h3>
      {loaded.data !== null && devices.length === 0 ? <p className="hint">No device has signed in yet.</p> : null}
      <ul className="item-list" aria-label={`Devices of ${member.email}`}>
        {devices.map((device, index) => {
          const name = `Device ${index + 1}, first seen ${formatMoment(device.createdAt)}`;
          return (
            <li className="item" key={device.id}>
              <div>
                <strong>{name}</strong>
                <p className="hint">
                  Last signed in or active {formatMoment(device.lastSeenAt)} · {trustOf(device, now)}
                </p>
              </div>
              <Button
                variant="secondary"
                disabled={action.busy !== null}
                busy={action.busy === device.id}
                busyLabel="Revoking…"
                aria-label={`Revoke ${name}`}
                onClick={() =>
                  void action
                    .run(
                      device.id,
                      "revoke-device",
                      () => admin.revokeDeviceTrust(device.id),
                      () => "That device's trust is revoked and its sessions are signed out.",
                    )
                    .then(loaded.reload)
                }
              >
                Revoke
              </Button>
            </li>
          );
        })}
      </ul>
      <LiveMessage message={action.notice} tone="success" />
      <FormAlert message={action.problem ?? loaded.problem} alertRef={null} />
    </div>
  );
}
