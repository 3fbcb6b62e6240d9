import type { Profile } from '../../clients/ads-types.js';
import { localDate } from '../../../domain/shared/calendar.js';
import type { Catalog } from '../catalog.js';
import { entityId, rngOf } from './seeded.js';
import { generateProfileAds, type ProfileAds } from './sp-generate.js';

// The simulator's Sponsored Products state: each profile's generated account, made on first
// use, then changed by the create/update/delete endpoints. Every applied change is logged so
// tests can see exactly what a dispatcher made the marketplace do.

export type SpOperation = 'create' | 'update' | 'delete';

export interface AppliedChange {
  seq: number;
  /** ISO 8601, by the simulator's clock */
  at: string;
  profileId: string;
  resource: string;
  operation: SpOperation;
  id: string;
  before: unknown;
  after: unknown;
}

export interface AdsState {
  readonly seed: number;
  readonly catalog: Catalog;
  now(): number;
  /** The profile's account, or undefined for a profile id the seller doesn't have. */
  profile(profileId: string): ProfileAds | undefined;
  /** The profile-local date by the simulator's clock. */
  today(ads: ProfileAds): string;
  /** A fresh id for an entity created through the API. */
  newId(): string;
  log(change: Omit<AppliedChange, 'seq' | 'at'>): void;
  changes(): AppliedChange[];
  clearChanges(): void;
  /** Told of every applied change, for the Marketing Stream's entity datasets. */
  onChange(listener: (change: AppliedChange) => void): void;
}

export function createAdsState(
  seed: number,
  profiles: readonly Profile[],
  catalog: Catalog,
  now: () => number,
): AdsState {
  const accounts = new Map<string, ProfileAds>();
  let changes: AppliedChange[] = [];
  const listeners: Array<(change: AppliedChange) => void> = [];
  let seq = 0;
  let created = 0;
  return {
    seed,
    catalog,
    now,
    profile(profileId) {
      let ads = accounts.get(profileId);
      if (!ads) {
        const profile = profiles.find((p) => String(p.profileId) === profileId);
        if (!profile) return undefined;
        ads = generateProfileAds(seed, profile, catalog);
        accounts.set(profileId, ads);
      }
      return ads;
    },
    today: (ads) => localDate(now(), ads.timezone),
    newId: () => entityId(rngOf(seed, 'created', ++created)),
    log(change) {
      const applied = { seq: ++seq, at: new Date(now()).toISOString(), ...change };
      changes.push(applied);
      for (const listener of listeners) listener(applied);
    },
    changes: () => [...changes],
    clearChanges() {
      changes = [];
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}
