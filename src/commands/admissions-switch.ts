import { ADMISSION_SWITCH_EVENTS, type AdmissionEvent } from '../domain/admission/events.js';
import { admissionsDisabled, decideSwitch } from '../domain/admission/rules.js';
import { NO_STREAM, type Position } from '../eventstore/port.js';
import type { CommandContext } from './handler.js';

// The operator's switch over new provider write requests (spec 7 `admissions_disabled`), one
// stream. Receipts already queued are not touched: the dispatcher never reads the switch.

export const ADMISSIONS_SWITCH_STREAM = 'admissions-switch';

export async function setAdmissions(
  ctx: CommandContext,
  command: Parameters<typeof decideSwitch>[0],
): Promise<{ changed: boolean; position: Position | null }> {
  const recorded = await ctx.store.readStream(ADMISSIONS_SWITCH_STREAM);
  const events = recorded
    .filter((e) => (ADMISSION_SWITCH_EVENTS as readonly string[]).includes(e.type))
    .map((e) => ({ type: e.type, data: e.data }) as AdmissionEvent);
  const decided = decideSwitch(command, admissionsDisabled(events));
  if (decided.length === 0) return { changed: false, position: null };
  const at = new Date().toISOString();
  const result = await ctx.store.appendToStream(
    ADMISSIONS_SWITCH_STREAM,
    decided.map((e) => ({ type: e.type, data: e.data, metadata: { ...ctx.metadata, at } })),
    { expectedRevision: recorded.at(-1)?.revision ?? NO_STREAM },
  );
  return { changed: true, position: result.position };
}
