import { useCallback, useState } from "react";
import type { AdminAction } from "../../api/admin-errors.ts";
import { describeAdminError } from "../../api/admin-errors.ts";
import { useStepUpGuard } from "../account/use-step-up.tsx";

export interface AdminActionState {
  /** The key of the action running now, or null. */
  readonly busy: string | null;
  readonly problem: string | null;
  readonly notice: string | null;
  /**
   * Runs one change behind the step-up guard: a step-up the server asks for is asked in place, then the
   * change runs again once. `done` words what happened; a refusal is worded from its kind.
   */
  readonly run: <T>(key: string, action: AdminAction, call: () => Promise<T>, done: (result: T) => string) => Promise<boolean>;
  readonly clear: () => void;
}

/** One section's busy flag, refusal and success notice. */
export function useAdminAction(): AdminActionState {
  const guard = useStepUpGuard();
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const run = useCallback(
    async <T>(key: string, action: AdminAction, call: () => Promise<T>, done: (result: T) => string): Promise<boolean> => {
      setBusy(key);
      setProblem(null);
      setNotice(null);
      try {
        setNotice(done(await guard(call)));
        return true;
      } catch (error) {
        setProblem(describeAdminError(error, action).message);
        return false;
      } finally {
        setBusy(null);
      }
    },
    [guard],
  );
  const clear = useCallback(() => {
    setProblem(null);
    setNotice(null);
  }, []);
  return { busy, problem, notice, run, clear };
}
