/**
 * How a strict reader refuses input: it names the field and the problem, and the caller decides
 * what error that is. The server passes the core's `invalidArgument`, so a refused policy or
 * settings patch is `InvalidArgument` naming the field, like any other input check, while this
 * package stays free of the core.
 */
export type Refuse = (field: string, problem: string) => Error;
