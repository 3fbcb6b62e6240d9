import { z } from 'zod';
import { activateAutomation } from '../../commands/automation/activation.js';
import { editAutomation } from '../../commands/automation/lifecycle.js';
import { checkOperationDependencies } from '../../commands/automation/operation-dependencies.js';
import { simulatedOutput } from '../admission.js';
import {
  automationCall,
  automationIdArgument,
  automationStateOutput,
  sourceArguments,
  written,
} from '../automations.js';
import { ACTIVATION_LIMIT, takeCallSlot } from '../throttle.js';
import { defineTool } from '../tool.js';

// Spec 4.4, 3.1: edits keep the state; `activate: true` makes it the live automation of its event
// type (deactivating the one that was), at most 20 activations per 60 s per user (spec 8).
export const updateAutomationTool = defineTool({
  name: 'update_automation',
  description:
    "Edits an automation's code, title or operation_dependencies (a draft stays a draft, a live one stays live; code is checked for syntax and the handle(event, context) signature, never run) and, with activate: true, makes it live: the live automation of the same event type, if any, is deactivated and the event type is subscribed (list_streams shows the stream pending at once, active once the marketplace confirms it). Edits are saved before activating. Two activations for one event type at the same moment: one gets activation_conflict.",
  annotations: {
    title: 'Update automation',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  input: {
    automation_id: automationIdArgument,
    ...sourceArguments,
    title: z.string().trim().min(1).max(200).optional().describe('a new title'),
    activate: z
      .boolean()
      .optional()
      .describe('true: make this automation live for its event type; false or absent: leave its state as it is'),
  },
  output: z.object({
    automation_id: z.string(),
    state: automationStateOutput.describe('its state after the call'),
    saved: z.array(z.string()).describe('the edits recorded, as event types; empty when nothing changed'),
    replaced: z
      .string()
      .nullable()
      .describe('the automation that was live for the event type and was deactivated by this activation; else null'),
    ...simulatedOutput,
  }),
  async handler(input, ctx) {
    const { automation_id, activate, ...edit } = input;
    await checkOperationDependencies(ctx.db, edit.operation_dependencies);
    // the activation is counted before anything is saved, so a refused one saves nothing
    if (activate) await takeCallSlot(ctx.db, ctx, ACTIVATION_LIMIT);
    const call = await automationCall(ctx);
    const { saved, status } = await editAutomation(call, automation_id, edit);
    const { replaced } = activate ? await activateAutomation(call, automation_id) : { replaced: null };
    return written(ctx, {
      automation_id: automation_id.trim().toLowerCase(),
      state: activate ? 'live' : status,
      saved: saved.map((e) => e.type),
      replaced,
    });
  },
});
