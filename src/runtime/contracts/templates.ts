import { selectableStreamType, type ContextScope } from '../../domain/stream/types.js';
import type { Field } from './fields.js';
import { CONTEXT_FIELDS, streamContract } from './index.js';

// The default code of create_automation for each type: a handle(event, context) that reads the
// type's key fields and queues nothing. Every path it reads is taken from the contract, and the
// context paths below are checked against it here, so a renamed field fails at load, not in a run.

/** What a handler of each scope usually looks at first. */
const CONTEXT_READS: Readonly<Record<ContextScope, readonly string[]>> = {
  Listing: ['listing.sku', 'listing.price', 'listing.currencyCode', 'listing.fulfillmentChannel', 'listing.buyable'],
  SellingPartner: ['selling_partner.seller_id', 'selling_partner.account_name'],
  CampaignOrPortfolio: ['budget.scopeType', 'budget.percentage', 'budget.amount', 'campaign.name'],
  HourlyMetrics: ['metrics.feed', 'metrics.hour', 'metrics.cost', 'metrics.sales', 'campaign.name'],
  EntityChange: ['campaign.name', 'campaign.state', 'campaign.dailyBudget'],
  Report: ['report.reportType', 'report.ingestionStatus', 'completeness.listings.truncated'],
};

/**
 * The lines of handler code that queue a listing's new price (a purchasable_offer merge patch),
 * for `listing` and `price` as the code names them, each line indented by `indent`.
 */
export const listingPriceUpdate = (listing: string, price: string, indent = ''): string[] =>
  [
    'context.mutations.push({',
    `  target: ${listing},`,
    "  action: 'update',",
    '  payload: {',
    "    productType: 'PRODUCT',",
    '    patches: [{',
    "      op: 'merge',",
    "      path: '/attributes/purchasable_offer',",
    `      value: [{ marketplace_id: ${listing}.marketplace.id, currency: ${listing}.currencyCode,`,
    `        audience: 'ALL', our_price: [{ schedule: [{ value_with_tax: ${price} }] }] }],`,
    '    }],',
    '  },',
    '});',
  ].map((line) => indent + line);

/** How to queue, as a comment, per scope: one realistic push with the contract's own names. */
const QUEUE_EXAMPLE: Readonly<Record<ContextScope, readonly string[]>> = {
  Listing: listingPriceUpdate('context.listing', '19.99'),
  SellingPartner: [
    '(with a webhook named alerts in Settings)',
    "context.webhooks.alerts.post('account event: ' + JSON.stringify(event));",
  ],
  CampaignOrPortfolio: [
    "context.mutations.push({ target: context.campaign, action: 'update', payload: { state: 'PAUSED' } });",
  ],
  HourlyMetrics: [
    "context.mutations.push({ target: context.campaign, action: 'update', payload: { budget: { budget: 40, budgetType: 'DAILY' } } });",
  ],
  EntityChange: [
    "context.mutations.push({ target: context.campaign, action: 'update', payload: { state: 'ENABLED' } });",
  ],
  Report: ["context.store.set('lastReport', event.reportReceiptId);"],
};

for (const [scope, paths] of Object.entries(CONTEXT_READS)) {
  const known = new Set(CONTEXT_FIELDS[scope as ContextScope].map((f) => f.path));
  for (const p of paths)
    if (!known.has(p)) throw new Error(`template of ${scope} reads context.${p}, not in the contract`);
}

const MAX_EVENT_READS = 5;

/** The event's described scalar fields outside arrays: the ones a handler branches on. */
function keyEventFields(fields: readonly Field[]): Field[] {
  const scalar = (f: Field) => !f.path.includes('[]') && !['object', 'array'].includes(f.type) && !f.optional;
  // the envelope's constants and delivery metadata say nothing a handler branches on
  const envelope = /^(n|N)otification(Metadata|Version|Type)\b|^(p|P)ayloadVersion$|^eventType$/;
  const candidates = fields.filter((f) => scalar(f) && !envelope.test(f.path));
  const rank = (f: Field) => (f.unit ? 0 : f.description ? 1 : 2);
  return candidates.sort((a, b) => rank(a) - rank(b)).slice(0, MAX_EVENT_READS);
}

/** JavaScript for a path: optional chaining below the first key (live events carry only what changed). */
const access = (root: string, path: string) => {
  const [first, ...rest] = path.split('.');
  return [`${root}.${first}`, ...rest].join('?.');
};
const variable = (path: string) => {
  const last = path.split('.').pop()!;
  return last.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
};

/** The default code of create_automation for a selectable type, or undefined for any other code. */
export function automationTemplate(code: string): string | undefined {
  const contract = streamContract(code);
  const scope = selectableStreamType(code)?.scope;
  if (!contract || !scope) return undefined;
  const reads = [
    ...keyEventFields(contract.event.fields).map((f) => ({ root: 'event', f })),
    ...CONTEXT_READS[scope].map((p) => ({ root: 'context', f: contract.context.fields.find((f) => f.path === p)! })),
  ];
  const used = new Set<string>();
  const lines = reads.map(({ root, f }) => {
    let name = variable(f.path);
    while (used.has(name)) name = `${root}${name[0]!.toUpperCase()}${name.slice(1)}`;
    used.add(name);
    const note = [f.type + (f.nullable ? ' or null' : ''), f.unit].filter(Boolean).join(', ');
    return `  const ${name} = ${access(root, f.path)}; // ${note}`;
  });
  return [
    `// ${code}: runs once per event (context scope ${scope}). describe_stream_type lists every field.`,
    '// Money: in event as the marketplace sends it; in context in major units (15.27, not 1527).',
    'function handle(event, context) {',
    ...lines,
    `  console.log(${[...used].join(', ')});`,
    '',
    '  // Nothing is queued by default. To queue a change, push { target, action, payload }:',
    ...QUEUE_EXAMPLE[scope].map((l) => `  // ${l}`),
    '}',
    '',
  ].join('\n');
}
