import type { Knex } from 'knex';
import { stableId } from '../../domain/shared/ids.js';
import { connectionFor, type StreamType } from '../../domain/stream/types.js';
import {
  createAdsClient,
  createSellingClient,
  MarketplaceError,
  type LwaClient,
  type NotificationsClient,
  type StreamsClient,
} from '../../marketplace/clients/index.js';
import { profileIdsOf } from '../../projections/streams/queries.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import { connectionCredentials, type CredentialsLookup } from '../credentials.js';

// What one subscription job asks of the marketplace (docs/marketplace-events.md, "Subscribing").
// Each step first looks for what an earlier run made, so a run repeated after a crash or a lost
// answer makes nothing twice: the account's destination is found by its URL, a selling
// subscription by its type, an ads create repeats its clientRequestToken, and an unsubscribe
// removes whatever subscription of the type points at us.

export interface SubscriberOptions {
  db: Knex;
  lwa: LwaClient;
  endpoints: { sellingApiUrl: string; adsApiUrl: string };
  credentials: CredentialsLookup;
  /** the account's ingestion URL and signing secret */
  push: (account_id: string) => { url: string; secret: string };
}

/** Whether the marketplace still has what an active subscription recorded; `error` says what is missing. */
export type VerifyAnswer = { status: 'present' } | { status: 'lost'; error: string };

export type SubscribeAnswer =
  | { status: 'active' | 'pending'; subscription_ids: string[]; destination_id: string | null }
  | { status: 'failed'; error: string };

/** The selling payload version of a notification type (the Notifications API's table). */
const payloadVersion = (code: string): string =>
  code === 'DATA_KIOSK_QUERY_PROCESSING_FINISHED'
    ? '2023-11-15'
    : [
          'FEED_PROCESSING_FINISHED',
          'REPORT_PROCESSING_FINISHED',
          'ITEM_SALES_EVENT_CHANGE',
          'DETAIL_PAGE_TRAFFIC_EVENT',
        ].includes(code)
      ? '2020-09-04'
      : '1.0';

/** The seller's subscription to the type, or null (the API answers 404 when there is none). */
const sellingSubscription = (notifications: NotificationsClient, code: string) =>
  notifications.getSubscription(code).catch((err: unknown) => {
    if (err instanceof MarketplaceError && err.status === 404) return null;
    throw err;
  });

export function subscriber(o: SubscriberOptions) {
  async function tokensOf(account_id: string): Promise<{ selling: string; ads: string }> {
    const row: { selling: { credentials?: string } | null; ads: { credentials?: string } | null } | undefined =
      await o.db.withSchema(READ_MODEL_SCHEMA).table('accounts').where({ account_id }).first('selling', 'ads');
    return {
      selling: (await connectionCredentials(o.credentials, row?.selling)).selling_refresh_token ?? '',
      ads: (await connectionCredentials(o.credentials, row?.ads)).ads_refresh_token ?? '',
    };
  }
  const hasCredentials = async (account_id: string, connection: 'selling' | 'ads') =>
    (await tokensOf(account_id))[connection] !== '';

  async function clients(account_id: string): Promise<{ notifications: NotificationsClient; streams: StreamsClient }> {
    const { selling, ads } = await tokensOf(account_id);
    return {
      notifications: createSellingClient({ endpoint: o.endpoints.sellingApiUrl, lwa: o.lwa, refreshToken: selling })
        .notifications,
      streams: createAdsClient({ endpoint: o.endpoints.adsApiUrl, lwa: o.lwa, refreshToken: ads }).streams,
    };
  }

  /** The account's destination at the marketplace (found by its URL), if there is one. */
  const findDestination = async (notifications: NotificationsClient, account_id: string) =>
    (await notifications.getDestinations()).find((d) => d.resource.http?.url === o.push(account_id).url);

  async function destinationOf(notifications: NotificationsClient, account_id: string): Promise<string> {
    const push = o.push(account_id);
    const find = () => findDestination(notifications, account_id);
    const existing = await find();
    if (existing) return existing.destinationId;
    try {
      return (await notifications.createDestination(`ingestion ${account_id}`, { http: push })).destinationId;
    } catch (err) {
      // another type's job of the account made it first (one destination per URL)
      const made = err instanceof MarketplaceError && err.status === 409 ? await find() : undefined;
      if (made) return made.destinationId;
      throw err;
    }
  }

  async function subscribeSelling(account_id: string, t: StreamType): Promise<SubscribeAnswer> {
    const { notifications } = await clients(account_id);
    const destination_id = await destinationOf(notifications, account_id);
    const existing = await sellingSubscription(notifications, t.code);
    // the seller has one subscription per type: one delivering elsewhere (the same seller
    // connected as another account) is not ours to take or move
    if (existing && existing.destinationId !== destination_id)
      return {
        status: 'failed',
        error: `the seller's ${t.code} subscription ${existing.subscriptionId} delivers to destination ${existing.destinationId}, not to this account's ${destination_id}`,
      };
    const subscription =
      existing ??
      (await notifications.createSubscription(t.code, {
        payloadVersion: payloadVersion(t.code),
        destinationId: destination_id,
      }));
    return { status: 'active', subscription_ids: [subscription.subscriptionId], destination_id };
  }

  /** One subscription per advertising profile; `request` keys the create tokens of this request. */
  async function subscribeAds(account_id: string, t: StreamType, request: number): Promise<SubscribeAnswer> {
    const { streams } = await clients(account_id);
    const profiles = await profileIdsOf(o.db, account_id);
    if (profiles.length === 0) return { status: 'failed', error: `account ${account_id} has no advertising profile` };
    const push = o.push(account_id);
    const made = await Promise.all(
      profiles.map(async (profileId) => {
        const clientRequestToken = stableId('stream-subscription', `${account_id}.${t.code}.${request}.${profileId}`);
        const { subscriptionId } = await streams.create(profileId, {
          clientRequestToken,
          dataSetId: t.dataset!,
          destination: { httpDestination: push },
          notes: `${t.code} for account ${account_id}`,
        });
        return streams.get(profileId, subscriptionId);
      }),
    );
    const failed = made.find((s) => s.status.startsWith('FAILED') || s.status === 'SUSPENDED');
    if (failed)
      return {
        status: 'failed',
        error: `subscription ${failed.subscriptionId} is ${failed.status} at the marketplace`,
      };
    const subscription_ids = made.map((s) => s.subscriptionId);
    const status = made.every((s) => s.status === 'ACTIVE') ? 'active' : 'pending';
    return { status, subscription_ids, destination_id: null };
  }

  async function verifySelling(account_id: string, t: StreamType): Promise<VerifyAnswer> {
    const { notifications } = await clients(account_id);
    const destination = await findDestination(notifications, account_id);
    if (!destination)
      return { status: 'lost', error: `the marketplace has no destination for ${o.push(account_id).url}` };
    const existing = await sellingSubscription(notifications, t.code);
    if (!existing) return { status: 'lost', error: `the marketplace has no ${t.code} subscription` };
    if (existing.destinationId !== destination.destinationId)
      return {
        status: 'lost',
        error: `the ${t.code} subscription ${existing.subscriptionId} delivers to destination ${existing.destinationId}, not to ${destination.destinationId}`,
      };
    return { status: 'present' };
  }

  /** Every subscription recorded is there, ACTIVE and pointing at the account's URL. */
  async function verifyAds(
    account_id: string,
    t: StreamType,
    subscription_ids: readonly string[],
  ): Promise<VerifyAnswer> {
    const { streams } = await clients(account_id);
    const { url } = o.push(account_id);
    const profiles = await profileIdsOf(o.db, account_id);
    // no profile known (the ads read model is being rebuilt): nothing to compare with, and calling
    // every stream lost would subscribe it a second time beside the live one
    if (profiles.length === 0) return { status: 'present' };
    const active = new Set<string>();
    for (const profileId of profiles)
      for (const s of await streams.list(profileId))
        if (s.dataSetId === t.dataset && s.destination?.httpDestination?.url === url && s.status === 'ACTIVE')
          active.add(s.subscriptionId);
    const missing = subscription_ids.filter((id) => !active.has(id));
    return missing.length === 0
      ? { status: 'present' }
      : { status: 'lost', error: `the marketplace has no active ${t.code} subscription ${missing.join(', ')}` };
  }

  return {
    /** What the marketplace has of an active subscription (read, never changed). */
    verify: (account_id: string, t: StreamType, subscription_ids: readonly string[]) =>
      t.source === 'ads' ? verifyAds(account_id, t, subscription_ids) : verifySelling(account_id, t),

    subscribe: (account_id: string, t: StreamType, request: number) =>
      t.source === 'ads' ? subscribeAds(account_id, t, request) : subscribeSelling(account_id, t),

    async unsubscribe(account_id: string, t: StreamType): Promise<void> {
      // a connection whose secret was erased (disconnected) can't call the marketplace any more:
      // the seller's authorization is gone with it, and so is the subscription's use
      if (!(await hasCredentials(account_id, connectionFor(t)))) return;
      const { notifications, streams } = await clients(account_id);
      if (t.source === 'selling') {
        const existing = await sellingSubscription(notifications, t.code);
        const ours = existing && existing.destinationId === (await destinationOf(notifications, account_id));
        if (ours) await notifications.deleteSubscriptionById(t.code, existing.subscriptionId);
        return;
      }
      const { url } = o.push(account_id);
      for (const profileId of await profileIdsOf(o.db, account_id))
        for (const s of await streams.list(profileId))
          if (s.dataSetId === t.dataset && s.destination?.httpDestination?.url === url && s.status !== 'ARCHIVED')
            await streams.archive(profileId, s.subscriptionId);
    },
  };
}

export type Subscriber = ReturnType<typeof subscriber>;

/** A provider failure as a subscription records it. */
export const providerError = (err: MarketplaceError): string =>
  `${err.status ?? 'no answer'} ${err.code}: ${err.message}`;
