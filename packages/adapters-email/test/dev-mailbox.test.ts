import { describe, expect, it } from "vitest";
import { ManualClock } from "@gatehouse/core/testing";
import { DevMailbox } from "../src/index.ts";

describe("dev mailbox", () => {
  it("lists a recipient's messages newest first, with the first link of each", async () => {
    const clock = new ManualClock();
    const mailbox = new DevMailbox({ clock });
    await mailbox.send({ to: "Ada@Example.com", subject: "Confirm", text: "Open http://localhost:8080/verify-email#token=gh_el_a now" });
    clock.advance(1000);
    await mailbox.send({ to: "ada@example.com", subject: "No link", text: "Hello" });
    await mailbox.send({ to: "bob@example.com", subject: "Other", text: "x" });
    expect(mailbox.messagesFor(" ADA@example.com ")).toEqual([
      { subject: "No link", text: "Hello", link: null, sentAt: clock.now() },
      {
        subject: "Confirm",
        text: "Open http://localhost:8080/verify-email#token=gh_el_a now",
        link: "http://localhost:8080/verify-email#token=gh_el_a",
        sentAt: clock.now() - 1000,
      },
    ]);
    expect(mailbox.messagesFor("nobody@example.com")).toEqual([]);
  });

  it("is bounded per recipient and in recipients, dropping the oldest", async () => {
    const mailbox = new DevMailbox({ perRecipient: 2, recipients: 2 });
    for (const subject of ["1", "2", "3"]) await mailbox.send({ to: "a@example.com", subject, text: "" });
    expect(mailbox.messagesFor("a@example.com").map((mail) => mail.subject)).toEqual(["3", "2"]);
    await mailbox.send({ to: "b@example.com", subject: "b", text: "" });
    await mailbox.send({ to: "c@example.com", subject: "c", text: "" });
    expect(mailbox.messagesFor("a@example.com")).toEqual([]);
    expect(mailbox.messagesFor("c@example.com")).toHaveLength(1);
  });
});
