import { archiveAutomation } from '../../commands/automation/lifecycle.js';
import { z } from 'zod';
import { simulatedOutput } from '../admission.js';
import { automationCall, automationIdArgument, automationStateOutput, written } from '../automations.js';
import { defineTool } from '../tool.js';

// Spec 4.4, 3.1: archived (deactivated first when live); history kept, no hard delete.
export const archiveAutomationTool = defineTool({
  name: 'archive_automation',
  description:
    'Archives an automation: a live one is deactivated first. It drops out of list_automations (include_archived: true still lists it) and stays readable with get_automation, with its history and code versions; it can no longer be edited or activated (duplicate_automation of it is refused too). Archiving an archived automation changes nothing.',
  annotations: {
    title: 'Archive automation',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: true,
  },
  input: { automation_id: automationIdArgument },
  output: z.object({
    automation_id: z.string(),
    state: automationStateOutput.extract(['archived']),
    deactivated: z.boolean().describe('true when it was live and this call deactivated it'),
    ...simulatedOutput,
  }),
  async handler(input, ctx) {
    const events = await archiveAutomation(await automationCall(ctx), input.automation_id);
    return written(ctx, {
      automation_id: input.automation_id.trim().toLowerCase(),
      state: 'archived',
      deactivated: events.some((e) => e.type === 'AutomationDeactivated'),
    });
  },
});
