import { useState } from "react";
import type { ReactNode } from "react";
import type { DeviceView } from "@gatehouse/contract";
import { describeAccountError } from "../../api/account-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { formatMoment } from "../../format-time.ts";
import { useServices } from "../../services.tsx";
import { useLoaded } from "./use-loaded.ts";

const trustOf = (device: DeviceView, now: number): string =>
  device.trusted && device.trustedUntil !== null && device.trustedUntil > now
    ? `Skips the second factor until ${formatMoment(device.trustedUntil)}`
    : "Asks for the second factor";

/** Its label and the start of its id: two browsers of one kind are still told apart. */
const deviceName = (device: DeviceView): string => `${device.label} (${device.id.slice(0, 8)})`;

/** Browsers and devices that signed in to this organization: forget one to end its trust and its sessions. */
export function Devices(): ReactNode {
  const { account } = useServices();
  const loaded = useLoaded(
    () => account.listDevices(),
    (error) => describeAccountError(error, "load").message,
  );
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const now = Date.now();

  const forget = async (device: DeviceView): Promise<void> => {
    setBusy(device.id);
    setProblem(null);
    setNotice(null);
    try {
      await account.forgetDevice(device.id);
      setNotice("That device is forgotten: its sessions are signed out and it will ask for the second factor.");
    } catch (error) {
      setProblem(describeAccountError(error, "forget-device").message);
    } finally {
      setBusy(null);
      loaded.reload();
    }
  };

  const devices = (loaded.data ?? []).filter((device) => !device.current);
  const current = (loaded.data ?? []).find((device) => device.current);
  return (
    <section className="card stack" aria-labelledby="devices-heading" data-testid="devices">
      <h2 id="devices-heading">Devices</h2>
      {current === undefined ? null : (
        <p>
          <strong>This browser</strong> · {trustOf(current, now)}
        </p>
      )}
      {loaded.data === null && loaded.problem === null ? <p>Loading…</p> : null}
      <ul className="item-list" aria-label="Your other devices">
        {devices.map((device) => (
          <li className="item" key={device.id}>
            <div>
              <strong>{deviceName(device)}</strong>
              <p className="hint">
                {trustOf(device, now)} · first seen {formatMoment(device.createdAt)} · last seen {formatMoment(device.lastSeenAt)}
                {device.lastAddress === null ? null : ` from ${device.lastAddress}`}
              </p>
            </div>
            <Button
              variant="secondary"
              onClick={() => void forget(device)}
              busy={busy === device.id}
              busyLabel="Forgetting…"
              disabled={busy !== null}
              aria-label={`Forget device ${deviceName(device)}`}
            >
              Forget
            </Button>
          </li>
        ))}
        {loaded.data !== null && devices.length === 0 ? <li className="item">No other device.</li> : null}
      </ul>
      <LiveMessage message={notice} tone="success" />
      <FormAlert message={problem ?? loaded.problem} alertRef={null} />
    </section>
  );
}
