import { useEffect, useRef, useState } from "react";
import type { ReactNode } from "react";
import { Button } from "../../components/Button.tsx";
import { LiveMessage } from "../../components/Notice.tsx";

const FILE_NAME = "gatehouse-recovery-codes.txt";

interface NewRecoveryCodesProps {
  readonly codes: readonly string[];
  readonly onDone: () => void;
}

/** A new set of codes, shown this once (the server keeps only hashes): copy, download, then hide. */
export function NewRecoveryCodes({ codes, onDone }: NewRecoveryCodesProps): ReactNode {
  const [status, setStatus] = useState<{ readonly message: string; readonly tone: "success" | "error" } | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const text = `Gatehouse recovery codes. Each works once.\n\n${codes.join("\n")}\n`;

  useEffect(() => heading.current?.focus(), []);

  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(text);
      setStatus({ message: "The codes are copied. Paste them somewhere safe.", tone: "success" });
    } catch {
      setStatus({ message: "They could not be copied here: select the codes and copy them, or download them.", tone: "error" });
    }
  };

  const download = (): void => {
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = FILE_NAME;
    link.click();
    // The click has handed the file to the browser; the URL is no longer needed.
    setTimeout(() => URL.revokeObjectURL(url), 0);
    setStatus({ message: `The codes are saved as ${FILE_NAME}.`, tone: "success" });
  };

  return (
    <div className="stack subsection" data-testid="new-recovery-codes">
      <h3 ref={heading} tabIndex={-1}>
        Your new recovery codes
      </h3>
      <p className="notice notice-info">Save them now: they are shown only this once. The codes you had before no longer work.</p>
      <ol className="recovery-code-list mono" aria-label="Your new recovery codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ol>
      <div className="choice">
        <Button variant="secondary" onClick={() => void copy()}>
          Copy codes
        </Button>
        <Button variant="secondary" onClick={download}>
          Download codes
        </Button>
      </div>
      <LiveMessage message={status?.message ?? null} tone={status?.tone ?? "success"} />
      <Button onClick={onDone}>I have saved them</Button>
    </div>
  );
}
