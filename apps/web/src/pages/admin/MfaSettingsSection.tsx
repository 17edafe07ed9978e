import { useEffect, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { FACTOR_KIND_VALUES, type EnforcementReportingView, type FactorKindView, type OrgMfaSettingsView } from "@gatehouse/contract";
import { describeAdminError } from "../../api/admin-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { TextField } from "../../components/TextField.tsx";
import { useServices } from "../../services.tsx";
import { useStepUpGuard } from "../account/use-step-up.tsx";
import { factorWord } from "./factor-words.ts";
import { useAdminAction } from "./use-admin-action.ts";

type Switch = "requireMfaNewDevice" | "requireMfaUntrustedDevice" | "trustDeviceAfterMfa" | "requirePhishingResistant" | "passkeySignIn";

/** What the browser extension's reports of what it blocked leave in the audit log, each with what it means. */
const REPORTING: readonly { readonly value: EnforcementReportingView; readonly label: string; readonly means: string }[] = [
  { value: "host_only", label: "Site only", means: "The rule and the site (host name) of each blocked navigation or action." },
  { value: "full", label: "Site and address", means: "Also the address without its query and fragment (a path can still name private things)." },
  { value: "off", label: "Off", means: "Reports are accepted and nothing is kept." },
];

/** Each setting with what it means, in one line. */
const SWITCHES: readonly { readonly key: Switch; readonly label: string; readonly means: string }[] = [
  { key: "requireMfaNewDevice", label: "Second factor on a new device", means: "A device signing in for the first time is asked for a second factor." },
  {
    key: "requireMfaUntrustedDevice",
    label: "Second factor on every untrusted device",
    means: "Any device whose trust has ended or was revoked is asked too, not only new ones.",
  },
  {
    key: "trustDeviceAfterMfa",
    label: "Trust a device after its second factor",
    means: "It then signs in with the password alone until its trust ends (below).",
  },
  {
    key: "requirePhishingResistant",
    label: "Require a phishing-resistant factor",
    means: "Members who hold a passkey must use it; the others are asked to add one. Needs passkeys allowed.",
  },
  { key: "passkeySignIn", label: "Passkey sign-in", means: "Members may sign in with a passkey alone, without their password." },
];

/** The org's MFA and device-trust settings, each with its meaning; Save sends them all. */
export function MfaSettingsSection(): ReactNode {
  const { admin } = useServices();
  const guard = useStepUpGuard();
  const [settings, setSettings] = useState<OrgMfaSettingsView | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    guard(() => admin.getMfaSettings()).then(
      (loaded) => live && setSettings(loaded),
      (error: unknown) => live && setProblem(describeAdminError(error, "load").message),
    );
    return () => {
      live = false;
    };
  }, [admin, guard]);
  return settings === null ? (
    <section className="card stack" aria-labelledby="mfa-heading">
      <h2 id="mfa-heading">MFA settings</h2>
      {problem === null ? <p>Loading…</p> : <FormAlert message={problem} alertRef={null} />}
    </section>
  ) : (
    <MfaSettingsForm initial={settings} />
  );
}

function MfaSettingsForm({ initial }: { readonly initial: OrgMfaSettingsView }): ReactNode {
  const { admin } = useServices();
  const save = useAdminAction();
  const [settings, setSettings] = useState(initial);
  const [ttl, setTtl] = useState(String(initial.trustTtlDays));
  const [stepUp, setStepUp] = useState(String(initial.stepUpMaxAgeMinutes));
  const [grace, setGrace] = useState(String(initial.extensionGraceMinutes));
  const [fieldErrors, setFieldErrors] = useState<Readonly<Record<string, string>>>({});

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const errors: Record<string, string> = {};
    const days = /^\d{1,4}$/.test(ttl.trim()) ? Number(ttl.trim()) : NaN;
    const minutes = /^\d{1,4}$/.test(stepUp.trim()) ? Number(stepUp.trim()) : NaN;
    const graceMinutes = /^\d{1,4}$/.test(grace.trim()) ? Number(grace.trim()) : NaN;
    if (Number.isNaN(days)) errors.trust_ttl_days = "Enter a whole number of days, 0 or more.";
    if (Number.isNaN(minutes) || minutes < 1 || minutes > 1440) errors.step_up_max_age_minutes = "Enter a whole number of minutes from 1 to 1440.";
    if (Number.isNaN(graceMinutes) || graceMinutes > 1440) errors.extension_grace_minutes = "Enter a whole number of minutes from 0 to 1440.";
    if (settings.allowedFactors.length === 0) errors.allowed_factors = "Allow at least one kind of second factor.";
    setFieldErrors(errors);
    if (Object.keys(errors).length > 0) return;
    await save.run(
      "save",
      "save-mfa",
      async () => {
        const saved = await admin.updateMfaSettings({ ...settings, trustTtlDays: days, stepUpMaxAgeMinutes: minutes, extensionGraceMinutes: graceMinutes });
        setSettings(saved);
        setTtl(String(saved.trustTtlDays));
        setStepUp(String(saved.stepUpMaxAgeMinutes));
        setGrace(String(saved.extensionGraceMinutes));
        return saved;
      },
      () => "Saved. Sign-ins from now on follow these settings.",
    );
  };

  const toggleFactor = (kind: FactorKindView, on: boolean): void =>
    setSettings((current) => ({ ...current, allowedFactors: on ? [...current.allowedFactors, kind] : current.allowedFactors.filter((kept) => kept !== kind) }));

  return (
    <form className="card stack" aria-labelledby="mfa-heading" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="mfa-heading">MFA settings</h2>
      <fieldset className="stack">
        <legend>Devices and sign-in</legend>
        {SWITCHES.map(({ key, label, means }) => (
          <label className="check-label" key={key}>
            <input type="checkbox" checked={settings[key]} onChange={(event) => setSettings((current) => ({ ...current, [key]: event.target.checked }))} />
            <span>
              {label}
              <span className="hint setting-means">{means}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <TextField
        label="Device trust, in days"
        name="trust-ttl-days"
        inputMode="numeric"
        value={ttl}
        onChange={setTtl}
        error={fieldErrors.trust_ttl_days ?? null}
        hint="How long a trusted device skips the second factor. 0: devices are never trusted. The platform caps it."
      />
      <fieldset className="stack">
        <legend>Allowed second factors</legend>
        <p className="hint">The kinds that satisfy this organization’s sign-in and step-up; at least one.</p>
        {FACTOR_KIND_VALUES.map((kind) => (
          <label className="check-label" key={kind}>
            <input type="checkbox" checked={settings.allowedFactors.includes(kind)} onChange={(event) => toggleFactor(kind, event.target.checked)} />
            {factorWord(kind).replace(/^./, (first) => first.toUpperCase())}
          </label>
        ))}
        {fieldErrors.allowed_factors === undefined ? null : <p className="field-error">{fieldErrors.allowed_factors}</p>}
      </fieldset>
      <TextField
        label="Step-up age, in minutes"
        name="step-up-minutes"
        inputMode="numeric"
        value={stepUp}
        onChange={setStepUp}
        error={fieldErrors.step_up_max_age_minutes ?? null}
        hint="Admin changes and factor changes need a second factor verified within this many minutes (1 to 1440)."
      />
      <TextField
        label="Browser extension grace, in minutes"
        name="extension-grace-minutes"
        inputMode="numeric"
        value={grace}
        onChange={setGrace}
        error={fieldErrors.extension_grace_minutes ?? null}
        hint="How long the browser extension keeps the last policy while it cannot reach this server; then it blocks every site (0 to 1440)."
      />
      <label className="check-label">
        <input
          type="checkbox"
          checked={settings.requireBrowserExtension}
          onChange={(event) => setSettings((current) => ({ ...current, requireBrowserExtension: event.target.checked }))}
        />
        <span>
          Require the browser extension
          <span className="hint setting-means">The Browser page opens nothing unless the Gatehouse extension is connected and holds the current policy.</span>
        </span>
      </label>
      <fieldset className="stack">
        <legend>Browser extension reports</legend>
        <p className="hint">What the audit log keeps of the navigations and actions the browser extension blocked.</p>
        {REPORTING.map(({ value, label, means }) => (
          <label className="check-label" key={value}>
            <input
              type="radio"
              name="enforcement-reporting"
              value={value}
              checked={settings.enforcementReporting === value}
              onChange={() => setSettings((current) => ({ ...current, enforcementReporting: value }))}
            />
            <span>
              {label}
              <span className="hint setting-means">{means}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <LiveMessage message={save.notice} tone="success" testId="mfa-notice" />
      <FormAlert message={save.problem} alertRef={null} />
      <div>
        <Button type="submit" busy={save.busy === "save"} busyLabel="Saving…">
          Save
        </Button>
      </div>
    </form>
  );
}
