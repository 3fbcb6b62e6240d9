import { accountArg, codeBlock, definePrompt, draftSteps } from './prompt.js';

// Spec 1.8: ad spend that brings no sales, or too little. Audit with the ads reads and
// v_ad_performance; the draft runs on each hour of a campaign's traffic (SP_TRAFFIC) and pauses
// its targets that spent without selling, and lowers the bid of those over the ACOS limit.

export const AD_WASTE_STREAM_TYPE = 'SP_TRAFFIC';

export const adWasteDraft = (minSpend: number, maxAcosPercent: number, bidCutPercent: number): string[] => [
  "// Ad waste: on each hour of a campaign's traffic, pause its targets that spent at least MIN_SPEND",
  '// over the trailing 30 days with no attributed sales, and lower the bid of those whose ACOS is',
  '// over MAX_ACOS by BID_CUT. Money here is major units of the profile currency.',
  `const MIN_SPEND = ${minSpend};`,
  `const MAX_ACOS = ${maxAcosPercent / 100};`,
  `const BID_CUT = ${bidCutPercent / 100};`,
  '',
  'function handle(event, context) {',
  '  const campaign = context.campaign;',
  "  if (!campaign || !campaign.id || campaign.state !== 'ENABLED') return;",
  '  for (const target of campaign.targets) {',
  '    const m = target.metrics30;',
  "    if (target.state !== 'ENABLED' || !m || m.cost < MIN_SPEND) continue;",
  '    if (m.sales === 0) {',
  "      context.mutations.push({ target, action: 'update', payload: { state: 'PAUSED' } });",
  "      console.log('pause ' + target.text + ': spent ' + m.cost + ' ' + target.currency + ' in 30 days, no sales');",
  '    } else if (m.acos !== null && m.acos > MAX_ACOS && target.bid) {',
  "      const digits = target.currency === 'JPY' ? 0 : 2;",
  '      const bid = Number((parseFloat(target.bid) * (1 - BID_CUT)).toFixed(digits));',
  '      if (bid <= 0 || bid === parseFloat(target.bid)) continue;',
  "      context.mutations.push({ target, action: 'update', payload: { bid: { bid } } });",
  "      console.log('lower ' + target.text + ' to ' + bid + ': ACOS ' + m.acos);",
  '    }',
  '  }',
  '}',
];

export const adWasteAudit = definePrompt({
  name: 'ad_waste_audit',
  title: 'Ad waste audit',
  description:
    'Finds Sponsored Products spend that brings no sales or too little (campaigns, keywords, targets), then offers a draft automation that pauses such targets and lowers over-ACOS bids, for the user to activate.',
  numbers: [
    {
      name: 'min_spend',
      description: 'spend over 30 days, in major units of the profile currency, from which a target counts as waste',
      default: 10,
      min: 0,
      max: 1_000_000,
    },
    { name: 'max_acos', description: 'the highest acceptable ACOS, in percent', default: 50, min: 1, max: 1000 },
    { name: 'bid_cut', description: 'how much to lower an over-ACOS bid, in percent', default: 20, min: 1, max: 90 },
  ],
  text: ({ account, values }) => {
    const acc = accountArg(account);
    return `Audit my Sponsored Products spend for waste${account ? ` on account ${account}` : ''}: spend of at least ${values.min_spend} (major units of the profile currency) over 30 days with no sales, and ACOS over ${values.max_acos}%. Read first, change nothing until I agree.

Audit with these read tools, in order:
1. connection_status: the account and its advertising profiles (currency, marketplace).
2. get_ads_summary {compare_to_previous: true${acc}}: spend, sales and ACOS per profile against the 30 days before.
3. list_campaigns {order_by: "cost", limit: 20${acc}}: where the money goes.
4. list_keywords and list_targets {order_by: "cost", limit: 100${acc}}: rows whose cost (minor units) is at least ${values.min_spend} major units with sales 0, and rows with acos over ${values.max_acos / 100}. Remember the last ~14 days of sales still mature, so recent ACOS reads high.
5. query_data (view v_ad_performance, money in minor units, never summed across currencies), for the trend by campaign:
   select campaign_id, campaign_name, currency, sum(cost) as cost, sum(attributed_sales_7d) as sales from v_ad_performance where report_date >= current_date - 30 group by campaign_id, campaign_name, currency order by cost desc limit 50
6. list_ads_entities {target_type: "Target"${acc}}: the local ids and native data of the targets you would change.

Report the waste you found (per campaign: target, spend, sales, ACOS) and what pausing or lowering would save. Then offer this draft automation. It runs on ${AD_WASTE_STREAM_TYPE} (each hour of a campaign's traffic) and acts on that campaign's targets by their 30-day figures:

${codeBlock(adWasteDraft(values.min_spend, values.max_acos, values.bid_cut))}

${draftSteps(AD_WASTE_STREAM_TYPE, ', sample_event: the describe_stream_type fixture of SP_TRAFFIC with campaign_id and marketplace_id set to a wasteful campaign of the audit (its native campaignId from list_ads_entities)')}`;
  },
});
