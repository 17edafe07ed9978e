import type { Page } from "playwright-core";
import { fillDevCode } from "./chromium-harness.ts";

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

/**
 * Signs in from /login through the second factor the org asks, with the dev helper's code (the phone first, the
 * first time); answers whether it was asked (false: a trusted browser, the password alone).
 */
export async function signInWithDevCode(page: Page, credentials: Credentials, phone: string): Promise<boolean> {
  await page.goto("/login");
  await submitSignIn(page, credentials);
  const phoneField = page.getByLabel("Mobile phone number");
  const landed = page.getByTestId("policy-summary");
  await phoneField.or(page.getByLabel("6-digit code")).or(landed).first().waitFor();
  if (await landed.isVisible()) return false;
  if (await phoneField.isVisible()) {
    await phoneField.fill(phone);
    await page.getByRole("button", { name: "Send code" }).click();
  }
  await fillDevCode(page);
  await page.getByRole("button", { name: "Verify" }).click();
  await landed.waitFor();
  return true;
}
