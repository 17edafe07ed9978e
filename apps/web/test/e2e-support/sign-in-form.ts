import type { Page } from "playwright-core";

export interface Credentials {
  readonly email: string;
  readonly password: string;
  /** The org's short name (or its id), as typed in the Organization field. */
  readonly org: string;
}

/** Fills the sign-in form on the page as it is now (/login), by the fields' labels. */
export async function fillSignIn(page: Page, { email, password, org }: Credentials): Promise<void> {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByLabel("Organization", { exact: true }).fill(org);
}

/** Fills the sign-in form and presses Sign in. */
export async function submitSignIn(page: Page, credentials: Credentials): Promise<void> {
  await fillSignIn(page, credentials);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}
