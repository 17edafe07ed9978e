import { useCallback, useEffect, useState } from "react";

export interface Loaded<T> {
  /** Null until the first answer. */
  readonly data: T | null;
  /** What went wrong with the last load, in the user's words. */
  readonly problem: string | null;
  readonly reload: () => void;
}

/**
 * Data for one section of a page: loads on mount and on `reload`, and ignores answers that arrive
 * after a newer load started or the section went away.
 */
export function useLoaded<T>(load: () => Promise<T>, describe: (error: unknown) => string): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let live = true;
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setProblem(null);
      },
      (error: unknown) => {
        if (live) setProblem(describe(error));
      },
    );
    return () => {
      live = false;
    };
    // `load` and `describe` are read at each generation: a page passes new closures on every render.
  }, [generation]);

  return { data, problem, reload: useCallback(() => setGeneration((n) => n + 1), []) };
}
