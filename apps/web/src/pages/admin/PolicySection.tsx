import { useCallback, useEffect, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { BROWSER_ACTIONS, type BrowserAction, type BrowserPolicyDraft, type ReceivedBrowserPolicy, type UrlDecisionView } from "@gatehouse/contract";
import { describeAdminError } from "../../api/admin-errors.ts";
import { errorFactsOf } from "@gatehouse/contract";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { TextField } from "../../components/TextField.tsx";
import { normalizeAddress } from "../../normalize-address.ts";
import { useServices } from "../../services.tsx";
import { useStepUpGuard } from "../account/use-step-up.tsx";
import { HostListField } from "./HostListField.tsx";
import { ENTRY_RULES, entriesDeciding, entriesOf } from "./policy-entries.ts";
import { useAdminAction } from "./use-admin-action.ts";

const ACTION_WORDS: Readonly<Record<BrowserAction, string>> = {
  navigate: "Open sites",
  download: "Download",
  upload: "Upload",
  copy_paste: "Copy and paste",
};

interface Draft {
  readonly allowed: string;
  readonly blocked: string;
  readonly defaultAction: string;
  readonly wildcardSupported: boolean;
  readonly allowedActions: readonly string[];
  readonly readOnlyMode: boolean;
}

function draftOf(policy: ReceivedBrowserPolicy): Draft {
  return {
    allowed: (policy.accessControl?.allowedDomains ?? []).join("\n"),
    blocked: (policy.accessControl?.blockedDomains ?? []).join("\n"),
    defaultAction: policy.accessControl?.defaultAction ?? "deny",
    wildcardSupported: policy.accessControl?.wildcardSupported ?? false,
    allowedActions: policy.actionRestrictions?.allowedActions ?? [],
    readOnlyMode: policy.actionRestrictions?.readOnlyMode ?? true,
  };
}

function policyOf(draft: Draft, lists: { allowed: string[]; blocked: string[] }): BrowserPolicyDraft {
  return {
    accessControl: {
      allowedDomains: lists.allowed,
      blockedDomains: lists.blocked,
      defaultAction: draft.defaultAction,
      wildcardSupported: draft.wildcardSupported,
    },
    actionRestrictions: { allowedActions: draft.allowedActions, readOnlyMode: draft.readOnlyMode },
  };
}

/** Words for a test's answer: the decision, and check-url's own reason when it denies. */
function decisionWords(decision: UrlDecisionView): string {
  if (decision.allowed) return `Allowed: ${decision.canonicalUrl} would open.`;
  return `Blocked: ${decision.reason ?? "this address cannot be opened"}`;
}

/** The org's browser policy as an editable draft: lists as text, the rules as you type, a test against the draft, Save. */
export function PolicySection(): ReactNode {
  const { admin } = useServices();
  const guard = useStepUpGuard();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [loadProblem, setLoadProblem] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let live = true;
    guard(() => admin.getBrowserPolicy()).then(
      (policy) => live && setDraft(draftOf(policy)),
      (error: unknown) => live && setLoadProblem(describeAdminError(error, "load").message),
    );
    return () => {
      live = false;
    };
  }, [admin, guard, generation]);

  if (draft === null) {
    return (
      <section className="card stack" aria-labelledby="policy-heading">
        <h2 id="policy-heading">Browser policy</h2>
        {loadProblem === null ? <p>Loading…</p> : <FormAlert message={loadProblem} alertRef={null} />}
      </section>
    );
  }
  return <PolicyForm initial={draft} onSaved={() => setGeneration((n) => n + 1)} />;
}

function PolicyForm({ initial, onSaved }: { readonly initial: Draft; readonly onSaved: () => void }): ReactNode {
  const { admin } = useServices();
  const save = useAdminAction();
  const test = useAdminAction();
  const [draft, setDraft] = useState(initial);
  const [invalid, setInvalid] = useState<{ allowed: number | null; blocked: number | null }>({ allowed: null, blocked: null });
  const [refusedField, setRefusedField] = useState<string | null>(null);
  const [testUrl, setTestUrl] = useState("");
  const [answer, setAnswer] = useState<string | null>(null);
  const update = useCallback((patch: Partial<Draft>): void => {
    setDraft((current) => ({ ...current, ...patch }));
    setAnswer(null);
  }, []);
  // Stable, so a list's text box (megabytes, for a large policy) renders again only when its own text changes.
  const setAllowed = useCallback((allowed: string) => update({ allowed }), [update]);
  const setBlocked = useCallback((blocked: string) => update({ blocked }), [update]);
  const allowedChecked = useCallback((count: number | null) => setInvalid((current) => ({ ...current, allowed: count })), []);
  const blockedChecked = useCallback((count: number | null) => setInvalid((current) => ({ ...current, blocked: count })), []);

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    setRefusedField(null);
    const policy = policyOf(draft, { allowed: entriesOf(draft.allowed), blocked: entriesOf(draft.blocked) });
    const ok = await save.run(
      "save",
      "save-policy",
      async () => {
        try {
          return await admin.updateBrowserPolicy(policy);
        } catch (error) {
          setRefusedField(errorFactsOf(error).field);
          throw error;
        }
      },
      () => "Saved. Members' next check of an address uses this policy.",
    );
    if (ok) onSaved();
  };

  const runTest = async (): Promise<void> => {
    setAnswer(null);
    const url = normalizeAddress(testUrl);
    const lists = { allowed: entriesDeciding(entriesOf(draft.allowed), url), blocked: entriesDeciding(entriesOf(draft.blocked), url) };
    await test.run(
      "test",
      "test-url",
      () => admin.testBrowserPolicy(policyOf(draft, lists), url),
      (decision) => {
        const words = decisionWords(decision);
        setAnswer(words);
        return words;
      },
    );
  };

  const pending = invalid.allowed === null || invalid.blocked === null;
  const invalidCount = (invalid.allowed ?? 0) + (invalid.blocked ?? 0);
  return (
    <form className="card stack" aria-labelledby="policy-heading" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="policy-heading">Browser policy</h2>
      <p className="hint">Blocked entries are checked first and always win; then allowed entries; then the default action.</p>
      <ul className="hint" aria-label="Entry rules">
        {ENTRY_RULES.map((rule) => (
          <li key={rule}>{rule}</li>
        ))}
      </ul>
      <HostListField
        label="Allowed sites"
        fileName="allowed-sites.txt"
        value={draft.allowed}
        onChange={setAllowed}
        wildcardSupported={draft.wildcardSupported}
        onChecked={allowedChecked}
        refused={refusedField === "access_control.allowed_domains"}
      />
      <HostListField
        label="Blocked sites"
        fileName="blocked-sites.txt"
        value={draft.blocked}
        onChange={setBlocked}
        wildcardSupported={draft.wildcardSupported}
        onChecked={blockedChecked}
        refused={refusedField === "access_control.blocked_domains"}
      />
      <fieldset className="stack">
        <legend>Sites on neither list</legend>
        {(["allow", "deny"] as const).map((value) => (
          <label className="check-label" key={value}>
            <input type="radio" name="default-action" value={value} checked={draft.defaultAction === value} onChange={() => update({ defaultAction: value })} />
            {value === "allow" ? "Allow them" : "Block them"}
          </label>
        ))}
      </fieldset>
      <label className="check-label">
        <input type="checkbox" checked={draft.wildcardSupported} onChange={(event) => update({ wildcardSupported: event.target.checked })} />
        <span>Wildcards: *.example.com matches example.com and every subdomain</span>
      </label>
      <fieldset className="stack">
        <legend>Actions members may take</legend>
        {BROWSER_ACTIONS.map((action) => (
          <label className="check-label" key={action}>
            <input
              type="checkbox"
              checked={draft.allowedActions.includes(action)}
              onChange={(event) =>
                update({ allowedActions: event.target.checked ? [...draft.allowedActions, action] : draft.allowedActions.filter((kept) => kept !== action) })
              }
            />
            {ACTION_WORDS[action]}
          </label>
        ))}
        <label className="check-label">
          <input type="checkbox" checked={draft.readOnlyMode} onChange={(event) => update({ readOnlyMode: event.target.checked })} />
          <span>Read-only mode: pages can be read, nothing uploaded or pasted</span>
        </label>
      </fieldset>
      <div className="stack subsection">
        <TextField
          label="Test a URL"
          name="test-url"
          value={testUrl}
          onChange={setTestUrl}
          inputMode="url"
          hint="Answers what a member's check would answer under this draft, before it is saved."
        />
        <div>
          <Button variant="secondary" onClick={() => void runTest()} busy={test.busy === "test"} busyLabel="Testing…" disabled={testUrl.trim() === ""}>
            Test
          </Button>
        </div>
        <LiveMessage message={answer} tone="info" testId="test-answer" />
        <FormAlert message={test.problem} alertRef={null} />
      </div>
      <LiveMessage message={save.notice} tone="success" testId="policy-notice" />
      <FormAlert
        message={
          save.problem ?? (invalidCount > 0 ? `Fix the ${invalidCount.toLocaleString("en")} invalid ${invalidCount === 1 ? "entry" : "entries"} first.` : null)
        }
        alertRef={null}
      />
      <div>
        <Button type="submit" busy={save.busy === "save"} busyLabel="Saving…" disabled={pending || invalidCount > 0}>
          Save
        </Button>
      </div>
    </form>
  );
}
