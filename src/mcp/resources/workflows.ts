// resource://service/workflows.md (spec 1.7): how an agent uses the service, step by step. Every
// tool it names is served (test/mcp/resources.test.ts holds each `tool_name` to the catalog).

export const WORKFLOWS_URI = 'resource://service/workflows.md';

export const WORKFLOWS_MD = `# Working with the marketplace automation service

Reads change nothing; writes become durable, auditable receipts; automations are JavaScript
\`handle(event, context)\` functions that run on marketplace events. Money in tools and SQL views
is integer minor units (1527 = 15.27); money in an automation's \`context\` is major units (15.27).
Never sum money across currencies.

## 1. Start: which accounts

Call \`connection_status\`. It lists each account id (pass it as \`account\`), its selling and
advertising connections, marketplaces and advertising profiles. A write needs \`account\` once
more than one account is connected. \`list_streams\` shows which event types are subscribed.

## 2. Audit with reads

- Sales: \`get_sales_summary\`, then \`list_sales_by_listing\` (whole days in each marketplace's
  time zone; check \`freshness\`: no rows means no confirmed sales, not zero sales).
- Listings: \`list_listings\` (price, floor, ceiling, stock under \`data\`, queued changes under
  \`mutations\`).
- Ads: \`get_ads_summary\`, \`list_campaigns\`, \`list_keywords\`, \`list_targets\` (order by cost
  to find spend; the last ~14 days still mature, so recent ACOS reads high), \`list_ads_entities\`
  for native entities and their local ids.
- Anything else: \`describe_data\` (the views, their columns, units and joins; also the
  resource data-dictionary.json) and \`query_data\` (one read-only SELECT, 3 s, 500 rows inline;
  \`export: true\` for a CSV file).
- Events: \`list_events\` and \`get_event\` show what the marketplace pushed;
  \`describe_stream_type\` gives an event type's payload fields, its context and a complete
  fixture.

## 3. Draft and dry-run an automation

1. Write \`function handle(event, context) { … }\` for one event type. Push changes as
   \`context.mutations.push({ target, action, payload })\`, using the target objects the context
   gives (\`context.listing\`, \`context.campaign\`, its \`targets\`, …). \`get_mutation_schema\`
   shows each payload.
2. Dry-run it with \`run_automation\` (\`code\` and \`stream_type\`; \`listing_id\` to pick a listing,
   \`event_id\` to replay a recorded event from \`list_events\`, or \`sample_event\`). Nothing is
   applied. Read \`changes\` (applied = would be admitted, blocked, failed, dropped), \`logs\` and
   \`missing_field_reads\`. Fix and dry-run again until the changes are the ones you meant.
3. Save it with \`create_automation\` (a draft; \`list_automations\`, \`get_automation\`,
   \`duplicate_automation\` to branch a copy).

## 4. Activate, with the user's consent

Show the user the code and the dry run's changes, then \`update_automation\` with
\`activate: true\`. One automation is live per event type and account; activating subscribes
the event type (\`list_streams\` shows it pending, then active). \`archive_automation\` retires one.

## 5. Watch what it does

- \`list_automation_actions\`: what live runs decided (queued, applied, failed, blocked) and
  \`warning\` rows for event keys the code read that the payload lacked.
- \`get_mutation\` and \`list_mutations\`: each receipt's status and the marketplace's answer.
  Queued means durably admitted, not accepted: read the receipt for \`outcome\`. An
  \`uncertain\` request is never resent blindly.

## 6. Change things directly

\`queue_mutations\` (ads entities and listings by local id, with an \`idempotency_key\`),
\`patch_listing\` and \`update_listing\` (price, floor, ceiling, block flag). On the demo endpoint
writes are validated and simulated; nothing is saved or sent.

## 7. Tell us

\`report_bug\` for something that went wrong and \`suggest_idea\` for something missing (in your own
words, no raw payloads or business data; 20 of each per day).

## Prompts

\`ad_waste_audit\`, \`margin_repricing\` and \`restock_protection\` walk through this flow for
their use case and end with a draft automation for the user to activate.
`;
