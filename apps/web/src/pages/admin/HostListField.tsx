import { memo, useEffect, useId, useRef, useState } from "react";
import type { ChangeEvent, ReactNode } from "react";
import { Button } from "../../components/Button.tsx";
import { checkList, MAX_SHOWN, type ListCheck } from "./policy-entries.ts";

interface HostListFieldProps {
  /** "Allowed sites" or "Blocked sites". */
  readonly label: string;
  /** A file name for Export, e.g. "blocked-sites.txt". */
  readonly fileName: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly wildcardSupported: boolean;
  /** Tells the section how many entries are invalid (null while a check runs). */
  readonly onChecked: (invalid: number | null) => void;
  /** The server refused this list on save. */
  readonly refused: boolean;
}

const yieldToPage = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
const CHECK_DELAY_MS = 250;

/**
 * One host list as a text box, one entry a line. Its entries are checked as the admin types (after a short
 * pause, in slices), and the invalid ones are listed with their line and the rule they break. Import reads a
 * text file into it; Export downloads it as text.
 */
export const HostListField = memo(function HostListField(props: HostListFieldProps): ReactNode {
  const { label, fileName, value, onChange, wildcardSupported, onChecked, refused } = props;
  const id = useId();
  const [check, setCheck] = useState<ListCheck | null>(null);
  const onCheckedRef = useRef(onChecked);
  onCheckedRef.current = onChecked;

  useEffect(() => {
    let cancelled = false;
    onCheckedRef.current(null);
    const timer = setTimeout(() => {
      void checkList(value, wildcardSupported, yieldToPage, () => cancelled).then((result) => {
        if (cancelled || result === null) return;
        setCheck(result);
        onCheckedRef.current(result.invalid);
      });
    }, CHECK_DELAY_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [value, wildcardSupported]);

  const importFile = async (event: ChangeEvent<HTMLInputElement>): Promise<void> => {
    const file = event.target.files?.[0];
    if (file !== undefined) onChange(await file.text());
    event.target.value = "";
  };
  const exportFile = (): void => {
    const url = URL.createObjectURL(new Blob([value.endsWith("\n") || value === "" ? value : `${value}\n`], { type: "text/plain" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = fileName;
    link.click();
    URL.revokeObjectURL(url);
  };

  const invalid = check !== null && check.invalid > 0;
  return (
    <div className={invalid || refused ? "field field-invalid" : "field"}>
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        spellCheck={false}
        autoCapitalize="none"
        autoComplete="off"
        wrap="off"
        rows={8}
        aria-invalid={invalid || refused ? true : undefined}
        aria-describedby={`${id}-summary ${id}-problems`}
      />
      <p className="hint" id={`${id}-summary`} aria-live="polite" data-testid={`${fileName}-summary`}>
        {check === null
          ? "Checking…"
          : `${check.entries.toLocaleString("en")} ${check.entries === 1 ? "entry" : "entries"}${check.invalid === 0 ? ", all valid" : `, ${check.invalid.toLocaleString("en")} invalid`}`}
      </p>
      <ul className="entry-problems" id={`${id}-problems`} aria-label={`Invalid entries of ${label}`}>
        {(check?.problems ?? []).map((problem) => (
          <li key={problem.line}>
            Line {problem.line}: {JSON.stringify(problem.entry)}: {problem.rule}
          </li>
        ))}
        {check !== null && check.invalid > MAX_SHOWN ? <li>…and {(check.invalid - MAX_SHOWN).toLocaleString("en")} more</li> : null}
      </ul>
      <div className="row-actions">
        <label className="button button-secondary file-button">
          Import into {label}
          <input type="file" accept=".txt,text/plain" className="visually-hidden" onChange={(event) => void importFile(event)} />
        </label>
        <Button variant="secondary" onClick={exportFile}>
          Export {label}
        </Button>
      </div>
    </div>
  );
});
