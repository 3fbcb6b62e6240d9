import { createAutomation } from '../../commands/automation/lifecycle.js';
import { checkOperationDependencies } from '../../commands/automation/operation-dependencies.js';
import { automationTemplate } from '../../runtime/contracts/templates.js';
import { accountArgument, selectAccounts } from '../accounts.js';
import { z } from 'zod';
import { simulatedOutput } from '../admission.js';
import { automationCall, automationStateOutput, sourceArguments, streamTypeArgument, written } from '../automations.js';
import { defineTool } from '../tool.js';

// Spec 4.4, 3.1: a new draft automation for one event type; its code defaults to the type's template.
export const createAutomationTool = defineTool({
  name: 'create_automation',
  description:
    "Creates a draft (inactive) automation for one event type and returns its id. The code defaults to the event type's template (describe_stream_type shows the contract). Saving checks the syntax and that handle(event, context) takes exactly 2 parameters; it never runs the code. Activate it with update_automation { activate: true }; dry-run it first with run_automation.",
  annotations: {
    title: 'Create automation',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  input: { stream_type: streamTypeArgument, ...sourceArguments, account: accountArgument },
  output: z.object({
    automation_id: z.string().describe('the new draft automation id'),
    state: automationStateOutput.extract(['draft']),
    stream_type: z.string().describe('the event type it handles'),
    account_id: z.string().describe('the account it runs for'),
    ...simulatedOutput,
  }),
  async handler(input, ctx) {
    await checkOperationDependencies(ctx.db, input.operation_dependencies);
    const call = await automationCall(ctx);
    const account = selectAccounts(call.accounts, input.account, 'write')[0]!;
    const stream_type = input.stream_type.trim();
    const automation_id = await createAutomation(call, {
      account,
      stream_type,
      title: `${stream_type} automation`,
      code: input.code ?? automationTemplate(stream_type) ?? '',
      operation_dependencies: input.operation_dependencies ?? {},
    });
    return written(ctx, { automation_id, state: 'draft', stream_type, account_id: account.id });
  },
});
