import { z } from 'zod';
import { AUDIENCES, VIEW_NAMES, type ViewDefinition } from './definition.js';
import { SHARED_COLUMNS, SHARED_JOINS, SHARED_WARNINGS } from './shared.js';

// A view's description (everything but its SQL) is data: one JSON file beside the view's
// module, checked here when the module loads, so a malformed entry fails at start and in tests.

type Shared = Record<string, unknown>;
/** `{ "shared": key }`: the entry of `table` under that key, stated once in shared.ts. */
const sharedIn = <T extends Shared>(table: T) =>
  z.object({ shared: z.enum(Object.keys(table) as [keyof T & string]) }).transform(({ shared }) => table[shared]!);

const viewName = z.enum(VIEW_NAMES);

const COLUMN = z.union([
  sharedIn(SHARED_COLUMNS),
  z
    .object({
      name: z.string().min(1),
      type: z.string().min(1),
      unit: z.string().min(1).optional(),
      nullable: z.boolean(),
      description: z.string().min(1),
    })
    .strict()
    .transform((c) => ({
      name: c.name,
      type: c.type,
      unit: c.unit ?? null,
      nullable: c.nullable,
      description: c.description,
    })),
]);

const JOIN = z.union([
  sharedIn(SHARED_JOINS),
  z.object({ view: viewName, on: z.string().min(1), fanOut: z.string().min(1).nullable() }).strict(),
]);

const CATALOGUE = z
  .object({
    name: viewName,
    audience: z.enum(AUDIENCES),
    grain: z.string().min(1),
    columns: z.array(COLUMN).min(1),
    freshness: z.string().min(1),
    joins: z.array(JOIN),
    warnings: z.array(z.union([sharedIn(SHARED_WARNINGS), z.string().min(1)])),
    dateColumn: z.string().min(1).nullable(),
  })
  .strict();

export type ViewCatalogue = Omit<ViewDefinition, 'sql' | 'measures' | 'rollups'>;

/** A view's catalogue from its JSON, shared entries resolved; throws on a malformed one. */
export const viewCatalogue = (json: unknown): ViewCatalogue => CATALOGUE.parse(json);
