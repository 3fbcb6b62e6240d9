import {
  ProtocolError,
  ProtocolErrorCode,
  type GetPromptResult,
  type PromptArgument,
} from '@modelcontextprotocol/server';
import type { CatalogPrompt } from '../mcp-server.js';

// What the service's prompts share (spec 1.8): string arguments, some of them numbers with a
// default and bounds, and one user message that walks the agent through an audit with read tools
// and ends with a draft automation for the user to activate.

/** A numeric argument: its default when omitted, and the range a value must fall in. */
export interface NumberArgument {
  name: string;
  description: string;
  default: number;
  min: number;
  max: number;
}

export interface PromptSpec<Numbers extends string> {
  name: string;
  title: string;
  description: string;
  numbers: ReadonlyArray<NumberArgument & { name: Numbers }>;
  /** the text of the one message, from the arguments as given (account: undefined when omitted) */
  text(args: { account: string | undefined; values: Record<Numbers, number> }): string;
}

const ACCOUNT: PromptArgument = {
  name: 'account',
  description: 'an account id from connection_status; omit when only one account is connected',
  required: false,
};

/** A number as prompts take it: a plain decimal in range (the detail names the argument and why). */
function numberOf(prompt: string, arg: NumberArgument, raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return arg.default;
  const value = /^\s*-?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(value) || value < arg.min || value > arg.max)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `the prompt '${prompt}': ${arg.name} must be a number from ${arg.min} to ${arg.max} (got '${raw}')`,
    );
  return value;
}

export function definePrompt<Numbers extends string>(spec: PromptSpec<Numbers>): CatalogPrompt {
  return {
    listing: {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      arguments: [
        ACCOUNT,
        ...spec.numbers.map((n) => ({
          name: n.name,
          description: `${n.description} (default ${n.default})`,
          required: false,
        })),
      ],
    },
    async get(args): Promise<GetPromptResult> {
      const values = Object.fromEntries(spec.numbers.map((n) => [n.name, numberOf(spec.name, n, args[n.name])]));
      const account = args.account?.trim() || undefined;
      return {
        description: spec.description,
        messages: [
          {
            role: 'user',
            content: { type: 'text', text: spec.text({ account, values: values as Record<Numbers, number> }) },
          },
        ],
      };
    },
  };
}

/** `, account: "<id>"` for a tool call the text shows, or nothing when no account was given. */
export const accountArg = (account: string | undefined): string =>
  account === undefined ? '' : `, account: ${JSON.stringify(account)}`;

/** The draft automation as the message shows it: a fenced JavaScript block (the last one in the text). */
export const codeBlock = (lines: readonly string[]): string => ['```javascript', ...lines, '```'].join('\n');

/** The closing steps every prompt shares: dry-run, show, save, activate only on the user's word, watch. */
export function draftSteps(streamType: string, dryRun: string): string {
  return [
    `Dry-run the draft with run_automation (code: the draft, stream_type: "${streamType}"${dryRun}). Nothing is applied. Show the user \`changes\` (applied = it would be admitted, blocked, failed with the reason), \`logs\` and \`missing_field_reads\`; adjust the constants and dry-run again until the changes are the ones the audit called for.`,
    `Save it with create_automation (stream_type: "${streamType}", code: the draft): it is a draft and does nothing yet.`,
    'Ask the user to confirm. Only when they agree, activate it with update_automation (automation_id, activate: true); activating subscribes the event type (list_streams shows it).',
    'Afterwards, watch list_automation_actions (what each live run decided) and get_mutation / list_mutations (what the marketplace answered).',
  ]
    .map((step, i) => `${i + 1}. ${step}`)
    .join('\n');
}
