import { z } from 'zod';

/** A moment as ISO 8601 with its offset (`Z` or `±hh:mm`): how events and the marketplace's APIs write times. */
export const instant = z.iso.datetime({ offset: true });
