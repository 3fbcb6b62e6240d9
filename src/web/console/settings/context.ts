import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import type { WebhookNotifier } from '../../../commands/webhook/posts.js';
import type { WebhookCall } from '../../../commands/webhook/context.js';
import type { CommandContext } from '../../../commands/shared/handler.js';
import type { EventStore } from '../../../eventstore/port.js';
import { reportingAppends, type Appended } from '../../../eventstore/reporting.js';
import { pollUntil } from '../../../infra/poll.js';
import { loadAccounts, type AccountView } from '../../../projections/accounts/queries.js';
import {
  onlyStopped,
  projectionsBehind,
  projectionsToReach,
  rememberWrites,
} from '../../../projections/read-your-writes.js';
import { READ_YOUR_WRITES_MS } from '../../../mcp/read-your-writes.js';
import { html, page, sendPage, type FormFields, type Html } from '../../page.js';
import { signedInUser } from '../../session.js';
import { consoleSections, SELLER_CONSOLE } from '../routes.js';

// What every Settings handler shares (docs/decisions/157-console-settings.md): the signed-in
// seller, commands in their name through the same command layer as the CLI, and read-your-writes
// as the MCP tools have it: a write remembers what it appended, the next page waits (bounded)
// until the read models show it.

export interface SettingsDeps {
  db: Knex;
  store: EventStore;
  /** WEBHOOK_SIGNING_KEY: webhook secrets derive from it */
  signingKey: string;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: plain http and private addresses for webhooks */
  allowPrivateNetworks: boolean;
  /** hands "Send test" deliveries to the delivery workers' queue */
  notifier: WebhookNotifier;
  /** how long "Send test" waits for the first attempt (the CLI's 30 s unless a test says) */
  firstAttemptWaitMs?: number;
  now?: () => Date;
}

export interface Seller {
  userId: string;
  /** the seller's accounts, as the read model has them */
  accounts: AccountView[];
  /** commands in the seller's name; what they append is remembered for the next page's reads */
  ctx: CommandContext;
  webhookCall: WebhookCall;
}

const POLL_MS = 20;

/** The signed-in seller (the routes' requireSignedIn let only them in), after their own last writes show. */
export async function sellerOf(req: FastifyRequest, deps: SettingsDeps): Promise<Seller & { done(): Promise<void> }> {
  const userId = (await signedInUser(req))!.userId;
  await pollUntil(async () => onlyStopped(await projectionsBehind(deps.db, userId)), READ_YOUR_WRITES_MS, POLL_MS);
  const appended: Appended[] = [];
  const store = reportingAppends(deps.store, (events) => appended.push(...events));
  const actor = { kind: 'user' as const, id: userId };
  return {
    userId,
    accounts: await loadAccounts(deps.db, userId),
    ctx: { store, metadata: { actor } },
    webhookCall: {
      store,
      db: deps.db,
      by: userId,
      actor,
      signingKey: deps.signingKey,
      allowPrivateNetworks: deps.allowPrivateNetworks,
      ...(deps.now ? { now: deps.now } : {}),
    },
    done: () => rememberWrites(deps.db, userId, projectionsToReach(appended)),
  };
}

/** Answers with a page of the console's layout. */
export const sendSettingsPage = (
  reply: FastifyReply,
  title: string,
  body: Html,
  o: { notice?: string | undefined; status?: number } = {},
) =>
  sendPage(
    reply,
    page({ title, notice: o.notice, signedIn: true, wide: true, sections: consoleSections(SELLER_CONSOLE) }, body),
    o.status ?? 200,
  );

/** What a Settings POST answers: back to Settings (Post/Redirect/Get), or a page of its own. */
export type Answer = { redirect: string } | { title: string; body: Html; notice?: string | undefined; status?: number };

/** A Settings POST: the seller, their form's fields; answers without sending (the routes send). */
export type Handler = (reply: FastifyReply, seller: Seller, fields: FormFields) => Promise<Answer>;

/** What a redirect back to Settings says was done: fixed texts, so that a link cannot make the page say anything else. */
export const DONE = {
  saved: 'The webhook is saved.',
  enabled: 'The webhook is enabled.',
  disabled: 'The webhook is disabled: automations no longer post to it.',
  removed: 'The webhook is removed.',
  'token-revoked': 'The token is revoked.',
  'client-revoked': 'The client is revoked: its tokens no longer work.',
  disconnected: 'The account is disconnected.',
  paused: "The account's automations are paused.",
  resumed: "The account's automations run again.",
  alerts: 'Where alerts go is saved.',
  'admissions-paused': "New marketplace write requests are paused: every seller's are refused until you resume.",
  'admissions-resumed': 'New marketplace write requests are accepted again.',
} as const;

/** Back to Settings, at a section, saying what was done. */
export const backTo = (section: string, done: keyof typeof DONE): Answer => ({
  redirect: `${SELLER_CONSOLE.settings}?${new URLSearchParams({ done })}#${section}`,
});

/** A page saying a form was not accepted, with the form again (its problems beside the fields). */
export const refusedForm = (title: string, form: Html, status = 400): Answer => ({
  title,
  body: html`${form}
    <p><a href="${SELLER_CONSOLE.settings}">Back to Settings</a></p>`,
  notice: 'Nothing was changed: see the messages beside the fields.',
  status,
});

/** A page saying why nothing was changed, with the way back. */
const nothingChanged = (status: number, title: string, why: string): Answer => ({
  title,
  body: html`<p><a href="${SELLER_CONSOLE.settings}">Back to Settings</a></p>`,
  notice: `${why} Nothing was changed.`,
  status,
});

/** A page saying what was asked for is not there (another seller's, or gone). */
export const notFound = (what: string): Answer => nothingChanged(404, 'Not found', what);

/** A page saying the signed-in user may not do this (a role they do not hold). */
export const forbidden = (why: string): Answer => nothingChanged(403, 'Not allowed', why);
