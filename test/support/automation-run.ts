import type { RunReport } from '../../src/domain/automation-run/decide.js';
import {
  automationRunId,
  NO_ACTION_FIELDS,
  type AutomationAction,
  type AutomationRunEvent,
} from '../../src/domain/automation-run/events.js';

// The live run the automation-run specs start from: its ids, its listing, and a run that
// decided nothing.

export const automation_id = '0b7d2c10-1111-4222-8333-944444444444';
export const account_id = '5d1f4e1a-8a43-4f51-9d2a-6f1f1f1f1f1f';
export const receipt_id = '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c';
export const at = '2026-11-25T10:00:00.000Z';
export const run = {
  automation_id,
  automation_version: 3,
  account_id,
  stream_type: 'ANY_OFFER_CHANGED',
  event_id: 'evt-1',
  listing_id: 'a8b1c2d3-0000-5000-8000-000000000001',
};
export const run_id = automationRunId(run);
export const listing = {
  type: 'Listing',
  id: run.listing_id,
  asin: 'B0TEST0001',
  sku: 'SKU-1',
  marketplace_id: 'ATVPDKIKX0DER',
  title: 'Walnut desk organizer',
};

/** The run's price update of its listing, applied: receipt, value in major units, the listing's fields. */
export const appliedListingAction: AutomationAction = {
  ...NO_ACTION_FIELDS,
  index: 0,
  kind: 'mutation',
  status: 'applied',
  value: 15.27,
  action: 'update',
  target_type: 'Listing',
  target_id: listing.id,
  receipt_id,
  asin: listing.asin,
  sku: listing.sku,
  marketplace_id: listing.marketplace_id,
  title: listing.title,
};

/** A run that pushed, wrote and posted nothing, read no missing key, and succeeded. */
export const quietReport = (): RunReport => ({
  error_message: null,
  missing_fields: [],
  mutations: [],
  store_changes: 0,
  webhook_posts: 0,
});

/** AutomationRunRecorded of `run` with these actions (and other fields as `over` says). */
export function recordedRun(actions: AutomationAction[], over: object = {}): AutomationRunEvent {
  const { mutations: _, ...report } = quietReport();
  return {
    type: 'AutomationRunRecorded',
    data: { run_id, run, at, ...report, actions, ...over } as Extract<
      AutomationRunEvent,
      { type: 'AutomationRunRecorded' }
    >['data'],
  };
}
