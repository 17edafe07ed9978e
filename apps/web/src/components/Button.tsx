import type { ButtonHTMLAttributes, ReactNode, Ref } from "react";

interface ButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, "disabled"> {
  readonly variant?: "primary" | "secondary" | "ghost";
  readonly disabled?: boolean;
  /** Shows `busyLabel` and disables the button while a request runs. */
  readonly busy?: boolean;
  readonly busyLabel?: string;
  readonly testId?: string;
  readonly ref?: Ref<HTMLButtonElement> | undefined;
}

/** A button that sets both `disabled` and `aria-disabled`, and says when it is busy. */
export function Button({
  variant = "primary",
  disabled = false,
  busy = false,
  busyLabel,
  testId,
  className,
  type = "button",
  children,
  ...rest
}: ButtonProps): ReactNode {
  const off = disabled || busy;
  const classes = ["button", `button-${variant}`, className].filter(Boolean).join(" ");
  return (
    <button {...rest} type={type} className={classes} disabled={off} aria-disabled={off} aria-busy={busy || undefined} data-testid={testId}>
      {busy && busyLabel !== undefined ? busyLabel : children}
    </button>
  );
}
