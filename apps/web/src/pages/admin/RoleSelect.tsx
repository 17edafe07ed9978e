import { useId } from "react";
import type { ReactNode } from "react";

/** "Member" or "Admin", as a native select (keyboard and screen readers for free). */
export function RoleSelect(props: {
  readonly label: string;
  readonly value: string;
  readonly onChange: (role: string) => void;
  readonly disabled?: boolean;
}): ReactNode {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(event) => props.onChange(event.target.value)} disabled={props.disabled}>
        <option value="member">Member</option>
        <option value="admin">Admin</option>
      </select>
    </div>
  );
}
