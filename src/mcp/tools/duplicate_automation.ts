import { duplicateAutomation } from '../../commands/automation/lifecycle.js';
import { z } from 'zod';
import { simulatedOutput } from '../admission.js';
import { automationCall, automationIdArgument, automationStateOutput, written } from '../automations.js';
import { defineTool } from '../tool.js';

// Spec 4.4, 3.1: a new draft copying a draft or live automation, for the same event type.
export const duplicateAutomationTool = defineTool({
  name: 'duplicate_automation',
  description:
    'Copies a draft or live automation (code, title with " (copy)", operation_dependencies) into a new draft for the same event type and account, and returns the new id. The source is unchanged.',
  annotations: {
    title: 'Duplicate automation',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  input: { automation_id: automationIdArgument },
  output: z.object({
    automation_id: z.string().describe('the new draft automation id'),
    state: automationStateOutput.extract(['draft']),
    source_automation_id: z.string().describe('the automation copied'),
    ...simulatedOutput,
  }),
  async handler(input, ctx) {
    const automation_id = await duplicateAutomation(await automationCall(ctx), input.automation_id);
    return written(ctx, {
      automation_id,
      state: 'draft',
      source_automation_id: input.automation_id.trim().toLowerCase(),
    });
  },
});
