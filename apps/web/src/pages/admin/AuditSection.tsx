import { useEffect, useId, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import type { AuditEventView, MemberSummaryView } from "@gatehouse/contract";
import type { AuditQuery } from "../../api/admin-client.ts";
import { describeAdminError } from "../../api/admin-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { formatMoment } from "../../format-time.ts";
import { useServices } from "../../services.tsx";
import { useStepUpGuard } from "../account/use-step-up.tsx";
import { AUDIT_KIND_WORDS, payloadWords } from "./audit-words.ts";

/** An event as one line of the export: the snake_case JSON of `gatehouse audit list`. */
function eventJson(event: AuditEventView): string {
  return JSON.stringify({
    id: event.id,
    at: new Date(event.at).toISOString(),
    kind: event.kind,
    actor: event.actor.userId === null ? { kind: event.actor.kind } : { kind: event.actor.kind, user_id: event.actor.userId },
    org_id: event.orgId,
    user_id: event.userId,
    device_id: event.deviceId,
    client_ip: event.clientIp,
    user_agent: event.userAgent,
    payload: event.payload,
  });
}

/** A `datetime-local` value as epoch ms in the reader's zone; undefined when empty or unreadable. */
function momentOf(value: string): number | undefined {
  if (value === "") return undefined;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

/** The org's audit trail, newest first: filter by member, kind and time; each event in words; export JSON lines. */
export function AuditSection(): ReactNode {
  const { admin } = useServices();
  const guard = useStepUpGuard();
  const id = useId();
  const [members, setMembers] = useState<readonly MemberSummaryView[]>([]);
  const [userId, setUserId] = useState("");
  const [kind, setKind] = useState("");
  const [since, setSince] = useState("");
  const [until, setUntil] = useState("");
  const [events, setEvents] = useState<readonly AuditEventView[] | null>(null);
  const [cursor, setCursor] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const query = (): AuditQuery => ({
    ...(userId === "" ? {} : { userId }),
    ...(kind === "" ? {} : { kinds: [kind] }),
    ...(momentOf(since) === undefined ? {} : { since: momentOf(since) }),
    ...(momentOf(until) === undefined ? {} : { until: momentOf(until) }),
  });

  const load = async (more: boolean): Promise<void> => {
    setBusy(true);
    setProblem(null);
    try {
      const page = await guard(() => admin.listAuditEvents({ ...query(), ...(more ? { cursor } : {}) }));
      setEvents((current) => (more ? [...(current ?? []), ...page.events] : page.events));
      setCursor(page.nextCursor);
    } catch (error) {
      setProblem(describeAdminError(error, "load").message);
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    void guard(() => admin.listMembers()).then(setMembers, () => undefined);
    void load(false);
    // Loads once on mount; later loads follow the filters' Show button.
  }, []);

  const emailOf = (user: string | null): string | null => (user === null ? null : (members.find((member) => member.userId === user)?.email ?? null));
  const exportLines = (): void => {
    const text = (events ?? []).map(eventJson).join("\n");
    const url = URL.createObjectURL(new Blob([text === "" ? "" : `${text}\n`], { type: "application/x-ndjson" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = "gatehouse-audit.jsonl";
    link.click();
    URL.revokeObjectURL(url);
  };

  return (
    <section className="card stack" aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit trail</h2>
      <form
        className="stack"
        aria-label="Filter the audit trail"
        onSubmit={(event: FormEvent<HTMLFormElement>) => {
          event.preventDefault();
          void load(false);
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-member`}>About member</label>
          <select id={`${id}-member`} value={userId} onChange={(event) => setUserId(event.target.value)}>
            <option value="">Everyone</option>
            {members.map((member) => (
              <option key={member.userId} value={member.userId}>
                {member.email}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-kind`}>What happened</label>
          <select id={`${id}-kind`} value={kind} onChange={(event) => setKind(event.target.value)}>
            <option value="">Anything</option>
            {Object.entries(AUDIT_KIND_WORDS).map(([value, words]) => (
              <option key={value} value={value}>
                {words}
              </option>
            ))}
          </select>
        </div>
        <div className="inline-form">
          <div className="field">
            <label htmlFor={`${id}-since`}>From</label>
            <input id={`${id}-since`} type="datetime-local" value={since} onChange={(event) => setSince(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-until`}>Until</label>
            <input id={`${id}-until`} type="datetime-local" value={until} onChange={(event) => setUntil(event.target.value)} />
          </div>
        </div>
        <div className="row-actions">
          <Button type="submit" busy={busy} busyLabel="Loading…">
            Show events
          </Button>
          <Button variant="secondary" onClick={exportLines} disabled={events === null || events.length === 0}>
            Export as JSON lines
          </Button>
        </div>
      </form>
      <FormAlert message={problem} alertRef={null} />
      {events !== null && events.length === 0 ? <p>No event matches.</p> : null}
      <ol className="item-list audit-list" aria-label="Events, newest first">
        {(events ?? []).map((event) => {
          const about = emailOf(event.userId);
          const by =
            event.actor.kind === "user" ? (emailOf(event.actor.userId) ?? "a user") : event.actor.kind === "system" ? "the operator" : "someone signed out";
          const details = payloadWords(event.payload);
          return (
            <li className="item" key={event.id} data-testid="audit-event">
              <div>
                <strong>{AUDIT_KIND_WORDS[event.kind] ?? event.kind}</strong>
                {about === null ? null : <> · {about}</>}
                <p className="hint">
                  {formatMoment(event.at)} · by {by}
                  {details === "" ? null : <> · {details}</>}
                </p>
                <p className="hint">
                  From {event.clientIp ?? "an unknown address"} · {event.userAgent ?? "unknown browser"}
                </p>
              </div>
            </li>
          );
        })}
      </ol>
      {cursor === "" ? null : (
        <div>
          <Button variant="secondary" onClick={() => void load(true)} busy={busy} busyLabel="Loading…">
            Show older events
          </Button>
        </div>
      )}
    </section>
  );
}
