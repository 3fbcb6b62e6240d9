import { executeDispatchControlCommand, flagFrom, flagStream } from '../../../commands/dispatch-control/execute.js';
import { controlStreamId } from '../../../domain/dispatch-control/decide.js';
import { DomainError } from '../../../domain/shared/errors.js';
import { listCampaigns } from '../../../mcp/tools/list_campaigns.js';
import { listListings } from '../../../mcp/tools/list_listings.js';
import { recordingStore } from '../../../mcp/admission.js';
import type { ToolContext } from '../../../mcp/tool.js';
import { resolveTarget } from '../../../projections/admission/queries.js';
import { html, type Html } from '../../page.js';
import { answerOf } from '../reads.js';
import { buttonForm } from './form.js';

// The account's listing block flags and campaign Automation switches (spec 3.4, 3.5), beside the
// automation whose requests they withhold. A listing is blocked through update_listing; a campaign's
// switch, which no tool sets, through the same command as the operator's CLI, on the seller's own
// campaigns only (calls.ts ownWrite). Both flags are read from their streams, as admission reads them (no read model
// lags behind a click).

export interface ListingFlag {
  id: string;
  sku: string;
  marketplace_id: string;
  title: string | null;
  blocked: boolean;
}

export interface CampaignFlag {
  campaign_id: string;
  name: string;
  marketplace_id: string | null;
  off: boolean;
}

/** How many listings and campaigns the page shows at once: a keyword narrows the listings, a name
 * the campaigns, so any one of them is a search away. */
export const FLAGS_PAGE = 20;

/** What the page searches for: a listing keyword, a campaign name. */
export interface FlagSearch {
  keyword: string;
  campaign: string;
}

export interface FlagsView {
  listings: ListingFlag[];
  /** every listing matching the keyword */
  total: number;
  campaigns: CampaignFlag[];
}

async function flags(ctx: ToolContext, type: 'Listing' | 'Campaign', ids: readonly string[]): Promise<boolean[]> {
  const streams = await recordingStore(ctx).readStreams(ids.map((id) => flagStream(controlStreamId(type, id))));
  return streams.map(flagFrom);
}

export async function readFlags(ctx: ToolContext, account: string, search: FlagSearch): Promise<FlagsView> {
  const { listings, total } = await answerOf<{ listings: Omit<ListingFlag, 'blocked'>[]; total: number }>(
    listListings,
    { account, limit: FLAGS_PAGE, ...(search.keyword ? { keyword: search.keyword } : {}) },
    ctx,
  );
  // an account without advertising has no campaigns to list
  const campaigns = await listCampaigns.call(
    { account, limit: FLAGS_PAGE, ...(search.campaign ? { name: search.campaign } : {}) },
    ctx,
  );
  const rows = campaigns.isError ? [] : (campaigns.structuredContent as { rows: Omit<CampaignFlag, 'off'>[] }).rows;
  const [blocked, off] = await Promise.all([
    flags(
      ctx,
      'Listing',
      listings.map((l) => l.id),
    ),
    flags(
      ctx,
      'Campaign',
      rows.map((c) => c.campaign_id),
    ),
  ]);
  return {
    listings: listings.map((l, i) => ({ ...l, blocked: blocked[i]! })),
    total,
    campaigns: rows.map((c, i) => ({ ...c, off: off[i]! })),
  };
}

/** Sets a campaign's Automation switch, if the campaign is one of `account`'s. */
export async function setCampaignSwitch(
  ctx: ToolContext,
  account: string,
  campaign_id: string,
  on: boolean,
): Promise<void> {
  const id = campaign_id.trim().toLowerCase();
  if (!(await resolveTarget(ctx.db, [account], { type: 'Campaign', id })))
    throw new DomainError('target_not_found', `campaign_id: no campaign '${campaign_id}' on this account`, {
      argument: 'campaign_id',
    });
  await executeDispatchControlCommand(
    {
      store: recordingStore(ctx),
      metadata: { actor: { kind: 'user', id: ctx.userId }, correlation_id: ctx.requestId },
      maxAttempts: 3,
    },
    { type: 'SetCampaignAutomation', account_id: account, campaign_id: id, enabled: on, at: ctx.now().toISOString() },
  );
}

/** A search form of the page, keeping the other search's value. */
const searchForm = (path: string, search: FlagSearch, field: keyof FlagSearch, label: string, submit: string) =>
  html`<form method="get" action="${path}" class="filters">
    <div>
      <label for="${field}">${label}</label>
      <input type="text" id="${field}" name="${field}" value="${search[field]}" />
    </div>
    ${(['keyword', 'campaign'] as const)
      .filter((other) => other !== field && search[other])
      .map((other) => html`<input type="hidden" name="${other}" value="${search[other]}" />`)}
    <button type="submit">${submit}</button>
  </form>`;

export function flagsBody(view: FlagsView, path: string, token: string, search: FlagSearch): Html {
  const { keyword, campaign } = search;
  const shown = view.listings.length;
  return html`<p>
      A blocked listing, or a campaign whose Automation switch is off, keeps its requests from the marketplace: they are
      recorded <strong>blocked</strong> and never sent, not even after unblocking.
    </p>
    <h2>Listings</h2>
    ${searchForm(path, search, 'keyword', 'Title, SKU or ASIN', 'Find listings')}
    ${
      view.total > shown
        ? html`<p>
            The ${shown} newest of ${view.total} listings${keyword ? ' that match' : ''}: find the others by title, SKU
            or ASIN.
          </p>`
        : ''
    }
    ${
      view.listings.length
        ? html`<ul class="automations">
            ${view.listings.map(
              (l) =>
                html`<li>
                  <strong>${l.sku}</strong> (${l.marketplace_id}) ${l.title ?? ''}:
                  <span class="state">${l.blocked ? 'blocked' : 'allowed'}</span>
                  ${buttonForm(`${path}/listing`, token, l.blocked ? `Allow ${l.sku}` : `Block ${l.sku}`, {
                    sku: l.sku,
                    marketplace_id: l.marketplace_id,
                    blocked: l.blocked ? 'false' : 'true',
                  })}
                </li>`,
            )}
          </ul>`
        : html`<p>No listings${keyword ? ' match' : ''}.</p>`
    }
    <h2>Campaigns</h2>
    ${searchForm(path, search, 'campaign', 'Campaign name', 'Find campaigns')}
    ${
      view.campaigns.length === FLAGS_PAGE
        ? html`<p>
            The ${FLAGS_PAGE} campaigns${campaign ? ' that match' : ''} with the most spend in the last 30 days: find
            the others by name.
          </p>`
        : ''
    }
    ${
      view.campaigns.length
        ? html`<ul class="automations">
            ${view.campaigns.map(
              (c) =>
                html`<li>
                  <strong>${c.name}</strong>${c.marketplace_id ? ` (${c.marketplace_id})` : ''}: Automation switch
                  <span class="state">${c.off ? 'off' : 'on'}</span>
                  ${buttonForm(
                    `${path}/campaign`,
                    token,
                    c.off ? `Switch on for ${c.name}` : `Switch off for ${c.name}`,
                    {
                      campaign_id: c.campaign_id,
                      on: c.off ? 'true' : 'false',
                    },
                  )}
                </li>`,
            )}
          </ul>`
        : html`<p>No campaigns${campaign ? ' match' : ''}.</p>`
    }`;
}
