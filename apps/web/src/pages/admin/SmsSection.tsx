import { useEffect, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import type { SmsPolicyView, SmsTrafficView } from "../../api/admin-client.ts";
import { describeAdminError } from "../../api/admin-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { TextField } from "../../components/TextField.tsx";
import { useServices } from "../../services.tsx";
import { useStepUpGuard } from "../account/use-step-up.tsx";
import { useAdminAction } from "./use-admin-action.ts";

/** Kinds of number no code is sent to (docs/sms-fraud.md), in words. */
const NUMBER_TYPES: readonly (readonly [string, string])[] = [
  ["premium_rate", "Premium-rate"],
  ["shared_cost", "Shared-cost"],
  ["uan", "Universal access (UAN)"],
  ["international_network", "International networks"],
  ["toll_free", "Toll-free"],
  ["fixed_line", "Fixed lines"],
  ["voip", "VoIP"],
  ["personal_number", "Personal numbers"],
  ["pager", "Pagers"],
  ["voicemail", "Voicemail"],
];

const DAY_MS = 24 * 60 * 60 * 1000;
const PERIODS = [
  { days: 1, label: "Last 24 hours" },
  { days: 7, label: "Last 7 days" },
  { days: 30, label: "Last 30 days" },
] as const;

/** Platform admins: where codes may be texted (every org), and the codes sent and verified per country and prefix. */
export function SmsSection(): ReactNode {
  return (
    <>
      <SmsPolicyForm />
      <SmsTraffic />
    </>
  );
}

function SmsPolicyForm(): ReactNode {
  const { admin } = useServices();
  const guard = useStepUpGuard();
  const [policy, setPolicy] = useState<SmsPolicyView | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    guard(() => admin.getSmsPolicy()).then(
      (loaded) => live && setPolicy(loaded),
      (error: unknown) => live && setProblem(describeAdminError(error, "load").message),
    );
    return () => {
      live = false;
    };
  }, [admin, guard]);
  return policy === null ? (
    <section className="card stack" aria-labelledby="sms-heading">
      <h2 id="sms-heading">SMS destinations</h2>
      {problem === null ? <p>Loading…</p> : <FormAlert message={problem} alertRef={null} />}
    </section>
  ) : (
    <SmsPolicyEditor initial={policy} />
  );
}

function SmsPolicyEditor({ initial }: { readonly initial: SmsPolicyView }): ReactNode {
  const { admin } = useServices();
  const save = useAdminAction();
  const [policy, setPolicy] = useState(initial);
  const [countries, setCountries] = useState(initial.allowedCountries.join(", "));
  const [countryError, setCountryError] = useState<string | null>(null);

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const regions = countries
      .split(/[\s,]+/)
      .map((region) => region.trim().toUpperCase())
      .filter((region) => region !== "");
    if (regions.some((region) => !/^[A-Z]{2}$/.test(region))) {
      setCountryError("Use two-letter region codes such as US, GB, FR, separated by commas.");
      return;
    }
    setCountryError(null);
    await save.run(
      "save",
      "save-policy",
      async () => {
        const saved = await admin.updateSmsPolicy({ ...policy, allowedCountries: regions });
        setPolicy(saved);
        setCountries(saved.allowedCountries.join(", "));
        return saved;
      },
      () => "Saved. The next code texted follows it.",
    );
  };

  return (
    <form className="card stack" aria-labelledby="sms-heading" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="sms-heading">SMS destinations</h2>
      <TextField
        label="Regions codes may be texted to"
        name="sms-countries"
        value={countries}
        onChange={setCountries}
        error={countryError}
        hint="Two-letter region codes, separated by commas. Empty: every region."
      />
      <fieldset className="stack">
        <legend>Numbers never texted</legend>
        {NUMBER_TYPES.map(([type, words]) => (
          <label className="check-label" key={type}>
            <input
              type="checkbox"
              checked={policy.refusedNumberTypes.includes(type)}
              onChange={(event) =>
                setPolicy({
                  ...policy,
                  refusedNumberTypes: event.target.checked ? [...policy.refusedNumberTypes, type] : policy.refusedNumberTypes.filter((kept) => kept !== type),
                })
              }
            />
            {words}
          </label>
        ))}
      </fieldset>
      <LiveMessage message={save.notice} tone="success" />
      <FormAlert message={save.problem} alertRef={null} />
      <div>
        <Button type="submit" busy={save.busy === "save"} busyLabel="Saving…">
          Save
        </Button>
      </div>
    </form>
  );
}

function SmsTraffic(): ReactNode {
  const { admin } = useServices();
  const guard = useStepUpGuard();
  const [days, setDays] = useState<number>(7);
  const [rows, setRows] = useState<readonly SmsTrafficView[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const until = Date.now();
    setRows(null);
    guard(() => admin.getSmsTraffic(until - days * DAY_MS, until)).then(
      (loaded) => live && setRows(loaded),
      (error: unknown) => live && setProblem(describeAdminError(error, "load").message),
    );
    return () => {
      live = false;
    };
  }, [admin, guard, days]);
  return (
    <section className="card stack" aria-labelledby="traffic-heading">
      <h2 id="traffic-heading">SMS traffic</h2>
      <div className="field">
        <label htmlFor="traffic-period">Period</label>
        <select id="traffic-period" value={days} onChange={(event) => setDays(Number(event.target.value))}>
          {PERIODS.map((period) => (
            <option key={period.days} value={period.days}>
              {period.label}
            </option>
          ))}
        </select>
      </div>
      <FormAlert message={problem} alertRef={null} />
      {rows !== null && rows.length === 0 ? <p>No code was texted in this period.</p> : null}
      {rows === null || rows.length === 0 ? null : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Codes texted and verified, per region and number prefix</caption>
            <thead>
              <tr>
                <th scope="col">Region or prefix</th>
                <th scope="col">Sent</th>
                <th scope="col">Verified</th>
                <th scope="col">Conversion</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={`${row.scope}-${row.key}`}>
                  <th scope="row">{row.scope === "prefix" ? `${row.key}…` : row.key}</th>
                  <td>{row.sent}</td>
                  <td>{row.verified}</td>
                  <td>{row.conversion === null ? "–" : `${Math.round(row.conversion * 100)}%`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="hint">A low conversion in one region or prefix is the mark of SMS pumping: codes sent that nobody enters.</p>
    </section>
  );
}
