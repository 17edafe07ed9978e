import { ConnectError } from "@connectrpc/connect";
import { useMemo, useState } from "react";
import type { ReactNode } from "react";
import { StepUpCancelledError } from "../../api/account-errors.ts";
import type { ConnectedService } from "../../api/connected-services.ts";
import { createStepUpFetch } from "../../api/step-up-fetch.ts";
import { Button } from "../../components/Button.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { useServices } from "../../services.tsx";
import { StepUpPanel } from "./StepUpPanel.tsx";

/**
 * "Connected services": each service of WEB_SERVICES called with an access JWT of this session, so a member
 * (or the operator setting a service up) sees whether it trusts their sign-in. A service that asks for a
 * stronger or more recent authentication (RFC 9470) gets a step-up here, then the call once more.
 */
export function ConnectedServices(): ReactNode {
  const { connectedServices } = useServices();
  if (connectedServices.length === 0) return null;
  return (
    <section className="card stack" aria-labelledby="connected-services-heading">
      <h2 id="connected-services-heading">Connected services</h2>
      <p className="aside">Services of your organization that accept your Gatehouse sign-in. Call one to check that it knows you.</p>
      <ul className="item-list" aria-label="Connected services">
        {connectedServices.map((service) => (
          <ServiceRow key={`${service.method} ${service.url}`} service={service} />
        ))}
      </ul>
    </section>
  );
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

type Outcome = { readonly tone: "success" | "error"; readonly message: string };

function ServiceRow({ service }: { readonly service: ConnectedService }): ReactNode {
  const { auth } = useServices();
  const [waiter, setWaiter] = useState<Waiter | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const call = useMemo(
    () =>
      createStepUpFetch({
        issueAccessJwt: (audience) => auth.issueAccessJwt(audience),
        stepUp: () => new Promise<void>((resolve, reject) => setWaiter({ resolve, reject })),
      }),
    [auth],
  );

  const run = async (): Promise<void> => {
    setBusy(true);
    setOutcome(null);
    try {
      const response = await call(service.audience, service.url, { method: service.method });
      setOutcome(await outcomeOf(service.name, response));
    } catch (error) {
      setOutcome({ tone: "error", message: failureOf(service.name, error) });
    } finally {
      setBusy(false);
    }
  };
  const settle = (finish: (waiter: Waiter) => void) => () => {
    if (waiter !== null) finish(waiter);
    setWaiter(null);
  };

  return (
    <li className="stack">
      <div>
        <strong>{service.name}</strong> <span className="aside">{service.url}</span>
      </div>
      {waiter === null ? (
        <Button onClick={() => void run()} busy={busy}>
          {busy ? "Calling…" : `Call ${service.name}`}
        </Button>
      ) : (
        <StepUpPanel
          reason={`${service.name} asks for a recent second factor.`}
          onDone={settle((w) => w.resolve())}
          onCancel={settle((w) => w.reject(new StepUpCancelledError()))}
        />
      )}
      <LiveMessage message={outcome?.message ?? null} tone={outcome?.tone ?? "info"} testId={`service-answer-${service.name}`} />
    </li>
  );
}

function failureOf(name: string, error: unknown): string {
  if (error instanceof StepUpCancelledError) return `${name} was not called again: you did not confirm it is you.`;
  // Only Gatehouse's own calls (IssueAccessJwt, the step-up) fail with a ConnectError; the service's fetch with a TypeError.
  if (error instanceof ConnectError) return `Gatehouse could not give you a token for ${name}: ${error.rawMessage}`;
  return `${name} could not be reached.`;
}

/** The service's answer in a sentence: its status and its body, as it sent it (it is the member's own data). */
async function outcomeOf(name: string, response: Response): Promise<Outcome> {
  const body = (await response.text()).slice(0, 500);
  if (response.ok) return { tone: "success", message: `${name} answered: ${body}` };
  if (response.status === 401) return { tone: "error", message: `${name} refused your sign-in (401): ${body}` };
  return { tone: "error", message: `${name} answered ${response.status}: ${body}` };
}
