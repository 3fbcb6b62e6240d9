import { rngOf } from '../ads/seeded.js';
import type { Rng } from '../prng.js';
import type { LiveListing } from '../selling/listings-state.js';

// The other sellers' offers on the fictional seller's listings: drawn from the seed the first
// time a listing is looked at, then moved by the live market. The Buy Box goes to the lowest
// landed price (ours on a tie); the simulator keeps no other state of competitors.

export interface CompetingOffer {
  sellerId: string;
  /** minor units of the listing's currency */
  price: number;
  shipping: number;
  fba: boolean;
  feedbackCount: number;
  positiveRating: number;
}

/** One row of an offer book: ours (sellerId null) or a competitor's. */
export interface BookOffer extends Omit<CompetingOffer, 'sellerId'> {
  sellerId: string | null;
  buyBoxWinner: boolean;
}

export interface Competition {
  offers(l: LiveListing): CompetingOffer[];
  /** Every offer, ours first, with the Buy Box winner marked; `b2b` prices the business offers. */
  book(l: LiveListing, b2b?: boolean): BookOffer[];
  /** One competitor reprices; tells whether we held the Buy Box before and after. */
  move(l: LiveListing, rng: Rng): { before: boolean; after: boolean };
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** Business offers sit a little under consumer ones. */
const B2B_FACTOR = 0.95;

export function createCompetition(seed: number): Competition {
  const offersByListing = new Map<string, CompetingOffer[]>();

  function offers(l: LiveListing): CompetingOffer[] {
    const key = `${l.marketplaceId}/${l.sku}`;
    let found = offersByListing.get(key);
    if (!found) {
      const rng = rngOf(seed, 'competition', key);
      found = Array.from({ length: rng.int(1, 4) }, () => ({
        sellerId: `A${rng.chars(13, ALNUM)}`,
        price: Math.max(1, Math.round(l.price * (0.92 + 0.25 * rng.next()))),
        shipping: rng.next() < 0.6 ? 0 : Math.round(l.price * 0.05),
        fba: rng.next() < 0.5,
        feedbackCount: rng.int(5, 20_000),
        positiveRating: rng.int(80, 100),
      }));
      offersByListing.set(key, found);
    }
    return found;
  }

  function book(l: LiveListing, b2b = false): BookOffer[] {
    const ours = b2b ? (l.b2bPrice ?? l.price) : l.price;
    const rows: BookOffer[] = [
      {
        sellerId: null,
        price: ours,
        shipping: 0,
        fba: l.fulfillmentChannel === 'FBA',
        feedbackCount: 1_000,
        positiveRating: 98,
        buyBoxWinner: false,
      },
      ...offers(l).map((o) => ({ ...o, price: b2b ? Math.round(o.price * B2B_FACTOR) : o.price, buyBoxWinner: false })),
    ];
    const landed = (o: BookOffer) => o.price + o.shipping;
    const winner = rows.reduce((best, o) => (landed(o) < landed(best) ? o : best), rows[0]!);
    winner.buyBoxWinner = true;
    return rows;
  }

  const weWin = (l: LiveListing) => book(l)[0]!.buyBoxWinner;

  return {
    offers,
    book,
    move(l, rng) {
      const before = weWin(l);
      const list = offers(l);
      const mover = list[rng.int(0, list.length - 1)]!;
      // a slight downward drift, so Buy Box losses happen as well as wins
      mover.price = Math.max(1, Math.round(mover.price * (0.9 + 0.16 * rng.next())));
      return { before, after: weWin(l) };
    },
  };
}
