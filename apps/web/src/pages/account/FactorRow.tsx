import type { ReactNode } from "react";
import { Button } from "../../components/Button.tsx";
import { formatMoment } from "../../format-time.ts";

interface FactorRowProps {
  readonly label: string;
  /** What the factor is, after its label: "authenticator app", "passkey". */
  readonly kind: string;
  readonly createdAt: number | null;
  readonly lastUsedAt: number | null;
  readonly removing: boolean;
  readonly onRemove: () => void;
}

/** One factor in an /account list: its label and kind, when it was added and last used, and its Remove button. */
export function FactorRow({ label, kind, createdAt, lastUsedAt, removing, onRemove }: FactorRowProps): ReactNode {
  return (
    <li className="item">
      <div>
        <strong>{label}</strong> ({kind})
        <p className="hint">
          Added {formatMoment(createdAt, "earlier")} · last used {formatMoment(lastUsedAt)}
        </p>
      </div>
      <Button variant="secondary" onClick={onRemove} busy={removing} busyLabel="Removing…" aria-label={`Remove ${label}`}>
        Remove
      </Button>
    </li>
  );
}
