import { describe, expect, it } from "vitest";
import { createGatehouse, GatehouseError, type EmailMessage, type EmailSender } from "../src/index.ts";
import { createMemoryStores, ManualClock, OutboxSmsSender, SequenceRandom } from "../src/testing/index.ts";
import { PASSWORD, TEST_PASSWORD_PARAMS } from "./harness.ts";

/** A mail server that is down (`refused`: nothing went out), flaky after the message went out (`maybe`), or up. */
class MailServer implements EmailSender {
  state: "refused" | "maybe" | "up" = "up";
  readonly delivered: EmailMessage[] = [];
  async send(message: EmailMessage): Promise<void> {
    if (this.state === "up") {
      this.delivered.push(message);
      return;
    }
    throw Object.assign(new Error(`mail server ${this.state}`), { mayHaveBeenSent: this.state === "maybe" });
  }
}

function setup() {
  const email = new MailServer();
  const gatehouse = createGatehouse({
    stores: createMemoryStores(),
    clock: new ManualClock(),
    random: new SequenceRandom(),
    sms: new OutboxSmsSender(),
    email,
    config: { password: TEST_PASSWORD_PARAMS },
  });
  const request = { clientIp: "198.51.100.7" };
  let n = 0;
  const register = () =>
    gatehouse.register({ email: `user${++n}@example.com`, password: PASSWORD, request }).then(
      () => "ok",
      (error: unknown) => (error instanceof GatehouseError ? error.kind : String(error)),
    );
  return { email, register };
}

describe("email outage: failed sends and the per-client limit", () => {
  it("sends the mail server refused spend nothing: 30 Registers from one address during the outage, then Register works at once", async () => {
    const { email, register } = setup();
    email.state = "refused";
    const outcomes = [];
    for (let i = 0; i < 30; i++) outcomes.push(await register());
    expect(new Set(outcomes)).toEqual(new Set(["email_unavailable"]));
    email.state = "up";
    expect(await register()).toBe("ok");
    expect(email.delivered).toHaveLength(1);
  });

  it("a send that may have gone out costs its unit: the limit (20 an hour per client) still holds", async () => {
    const { email, register } = setup();
    email.state = "maybe";
    const outcomes = [];
    for (let i = 0; i < 21; i++) outcomes.push(await register());
    expect(outcomes.slice(0, 20)).toEqual(Array(20).fill("email_unavailable"));
    expect(outcomes[20]).toBe("rate_limited");
  });
});
