import { createContext, useCallback, useContext, useMemo, useRef, useState } from "react";
import { isStepUpRequired, StepUpCancelledError } from "../../api/account-errors.ts";

/** Runs an account change; when the server asks for a fresh second factor, asks the user for one and runs it again once. */
export type StepUpGuard = <T>(action: () => Promise<T>) => Promise<T>;

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export interface StepUpState {
  readonly guard: StepUpGuard;
  /** A change is waiting for the user to confirm it is them. */
  readonly open: boolean;
  /** The step-up succeeded (the session holds its new tokens): the waiting changes run again. */
  readonly done: () => void;
  /** The user gave up: the waiting changes fail with StepUpCancelledError. */
  readonly cancel: () => void;
}

/**
 * The step-up state of the account page. Changes that fail while a step-up is open wait for the same
 * one. Focus goes back to where it was (the button that asked) once the step-up closes.
 */
export function useStepUpState(): StepUpState {
  const [open, setOpen] = useState(false);
  const waiters = useRef<Waiter[]>([]);
  const returnFocus = useRef<HTMLElement | null>(null);

  const settle = useCallback((outcome: (waiter: Waiter) => void): void => {
    const settled = waiters.current.splice(0);
    setOpen(false);
    for (const waiter of settled) outcome(waiter);
    const target = returnFocus.current;
    returnFocus.current = null;
    // After the re-render that shows the page again: a hidden element cannot take focus.
    requestAnimationFrame(() => target?.focus());
  }, []);

  const guard: StepUpGuard = useCallback(async <T,>(action: () => Promise<T>): Promise<T> => {
    try {
      return await action();
    } catch (error) {
      if (!isStepUpRequired(error)) throw error;
    }
    await new Promise<void>((resolve, reject) => {
      if (waiters.current.length === 0 && document.activeElement instanceof HTMLElement) returnFocus.current = document.activeElement;
      waiters.current.push({ resolve, reject });
      setOpen(true);
    });
    return action();
  }, []);

  return useMemo(
    () => ({
      guard,
      open,
      done: () => settle((waiter) => waiter.resolve()),
      cancel: () => settle((waiter) => waiter.reject(new StepUpCancelledError())),
    }),
    [guard, open, settle],
  );
}

const StepUpContext = createContext<StepUpGuard | null>(null);
export const StepUpProvider = StepUpContext.Provider;

/** The account page's guard for changes that may need a step-up. */
export function useStepUpGuard(): StepUpGuard {
  const guard = useContext(StepUpContext);
  if (guard === null) throw new Error("useStepUpGuard() needs a <StepUpProvider>.");
  return guard;
}
