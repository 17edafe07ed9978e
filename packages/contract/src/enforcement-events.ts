/** BrowserService.ReportEnforcementEvents: what the browser extension blocked, both ways. */
import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import type { EnforcementEvent, ReportEnforcementEventsRequest } from "./gen/gatehouse/v1/browser_pb.ts";
import type { MessageFields } from "./message-fields.ts";
import type { Refuse } from "./refusal.ts";

/** One blocked navigation or action as the extension holds it; `at` in epoch milliseconds. */
export interface EnforcementEventView {
  readonly kind: string;
  readonly rule: string;
  readonly url: string;
  readonly at: number;
}

/** The server reading a batch: every event names its time; the core checks the rest. */
export function enforcementEventsFromWire(request: MessageFields<ReportEnforcementEventsRequest>, refuse: Refuse): EnforcementEventView[] {
  return request.events.map((event, i) => {
    if (event.at === undefined) throw refuse(`events[${i}].at`, "is required");
    return { kind: event.kind, rule: event.rule, url: event.url, at: timestampMs(event.at) };
  });
}

/** A client sending a batch. */
export function enforcementEventsToWire(events: readonly EnforcementEventView[]): MessageFields<EnforcementEvent>[] {
  return events.map(({ kind, rule, url, at }) => ({ kind, rule, url, at: timestampFromMs(at) }));
}
