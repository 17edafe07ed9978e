import type { ReactNode } from "react";
import type { DeviceView, MemberSummaryView } from "@gatehouse/contract";
import { describeAdminError } from "../../api/admin-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { formatMoment } from "../../format-time.ts";
import { useServices } from "../../services.tsx";
import { useLoaded } from "../account/use-loaded.ts";
import { useStepUpGuard } from "../account/use-step-up.tsx";
import { useAdminAction } from "./use-admin-action.ts";

/** What each `amr` value says the session proved. */
const METHOD_NAMES: Readonly<Record<string, string>> = {
  pwd: "password",
  sms: "text message",
  otp: "authenticator app",
  rec: "recovery code",
  webauthn: "passkey",
};
const provedWith = (amr: readonly string[]): string => amr.map((method) => METHOD_NAMES[method] ?? method).join(" and ");

const trustOf = (device: DeviceView, now: number): string =>
  device.trusted && device.trustedUntil !== null && device.trustedUntil > now ? `trusted until ${formatMoment(device.trustedUntil)}` : "not trusted";

/** Its label and the start of its id: two browsers of one kind are still told apart (as on the member's own page). */
const deviceName = (device: DeviceView): string => `${device.label} (${device.id.slice(0, 8)})`;

/**
 * A member's devices in the org, never by fingerprint (what each is, its user agent, first and last seen and from
 * where, its trust; revoke one), and their live sessions (on which device, since when, proved with what; sign one out).
 */
export function MemberDevices({ member }: { readonly member: MemberSummaryView }): ReactNode {
  const { admin } = useServices();
  const guard = useStepUpGuard();
  const action = useAdminAction();
  const loaded = useLoaded(
    () => guard(() => admin.listUserDevices(member.userId)),
    (error) => describeAdminError(error, "load").message,
  );
  const sessions = useLoaded(
    () => guard(() => admin.listUserSessions(member.userId)),
    (error) => describeAdminError(error, "load").message,
  );
  const now = Date.now();
  const devices = loaded.data ?? [];
  const sessionDevice = (deviceId: string): string => {
    const device = devices.find(({ id }) => id === deviceId);
    return device === undefined ? "a device" : deviceName(device);
  };
  const reload = (): void => {
    loaded.reload();
    sessions.reload();
  };
  return (
    <div className="stack subsection">
      <h3>Devices of {member.email}</h3>
      {loaded.data !== null && devices.length === 0 ? <p className="hint">No device has signed in yet.</p> : null}
      <ul className="item-list" aria-label={`Devices of ${member.email}`}>
        {devices.map((device) => {
          const name = deviceName(device);
          return (
            <li className="item device-item" key={device.id}>
              <div>
                <strong>{name}</strong>
                <p className="hint">
                  First seen {formatMoment(device.createdAt)} · last signed in or active {formatMoment(device.lastSeenAt)} from{" "}
                  {device.lastAddress ?? "an unknown address"} · {trustOf(device, now)}
                </p>
                <p className="hint">
                  User agent: <span className="mono">{device.userAgent ?? "none sent"}</span>
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
                    .then(reload)
                }
              >
                Revoke
              </Button>
            </li>
          );
        })}
      </ul>
      <h3>Sessions of {member.email}</h3>
      {sessions.data !== null && sessions.data.length === 0 ? <p className="hint">No session is signed in.</p> : null}
      <ul className="item-list" aria-label={`Sessions of ${member.email}`}>
        {(sessions.data ?? []).map((session) => {
          const name = `Session on ${sessionDevice(session.deviceId)}, signed in ${formatMoment(session.createdAt)}`;
          return (
            <li className="item" key={session.id}>
              <div>
                <strong>{name}</strong>
                <p className="hint">
                  With {provedWith(session.amr)} · last active {formatMoment(session.lastSeenAt)}
                </p>
              </div>
              <Button
                variant="secondary"
                disabled={action.busy !== null}
                busy={action.busy === session.id}
                busyLabel="Signing out…"
                aria-label={`Sign out ${name}`}
                onClick={() =>
                  void action
                    .run(
                      session.id,
                      "sign-out",
                      () => admin.revokeUserSession(member.userId, session.id),
                      () => "That session is signed out.",
                    )
                    .then(reload)
                }
              >
                Sign out
              </Button>
            </li>
          );
        })}
      </ul>
      <LiveMessage message={action.notice} tone="success" />
      <FormAlert message={action.problem ?? loaded.problem ?? sessions.problem} alertRef={null} />
    </div>
  );
}
