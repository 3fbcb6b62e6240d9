import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { Knex } from '../infra/db.js';
import { UsageError } from '../projections/rebuild-command.js';
import { acquireCatalog, FIXTURE_SOURCE } from './acquire.js';
import { coverage, type Coverage } from './queries.js';

export const CATALOG_USAGE = `  catalog acquire [--from <folder>]          read every Swagger 2.0 / OpenAPI 3 document under the folder
                                              (default: the service's own fixture documents) and select
                                              the catalog revision they make; prints coverage and source gaps`;

/** Spec 4.9's coverage figures, printed beside ours (the spec's documents are not ours). */
const SPEC_COVERAGE: Record<string, Omit<Coverage, 'provider'>> = {
  ads_api: { acquired: 1469, schema: 1464, live_read: 6, queued: 13, automation: 13, ingested: 0 },
  sp_api: { acquired: 373, schema: 373, live_read: 5, queued: 3, automation: 3, ingested: 0 },
};

export async function runCatalogCommand(
  action: string | undefined,
  args: string[],
  deps: { db: Knex; print: (line: string) => void },
): Promise<void> {
  if (action !== 'acquire') throw new UsageError(`usage:\n${CATALOG_USAGE}`);
  const { values } = parseArgs({ args, options: { from: { type: 'string' } }, strict: true });
  const started = performance.now();
  const { catalog, stored } = await acquireCatalog(deps.db, { from: values.from ?? FIXTURE_SOURCE });
  const seconds = (performance.now() - started) / 1000;
  const { print } = deps;
  print(`catalog revision ${catalog.revision}${stored ? ' selected' : ' (already selected: nothing stored)'}`);
  print(
    `${catalog.documents} document(s) from ${catalog.source}, ${catalog.operations.length} operation(s), in ${seconds.toFixed(1)} s (peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB)`,
  );
  print('coverage (ours / spec 4.9):');
  for (const c of await coverage(deps.db, catalog.revision)) {
    const spec = SPEC_COVERAGE[c.provider]!;
    const cells = (['acquired', 'schema', 'live_read', 'queued', 'automation', 'ingested'] as const).map(
      (k) => `${k} ${c[k]}/${spec[k]}`,
    );
    print(`  ${c.provider.padEnd(8)} ${cells.join('  ')}`);
  }
  const byKind = new Map<string, number>();
  for (const g of catalog.gaps) byKind.set(g.kind, (byKind.get(g.kind) ?? 0) + 1);
  print(`source gaps: ${catalog.gaps.length}${[...byKind].map(([k, n]) => `; ${k} ${n}`).join('')}`);
  for (const g of catalog.gaps.slice(0, 20)) print(`  ${g.kind} ${g.document}: ${g.detail}`);
  if (catalog.gaps.length > 20) print(`  … and ${catalog.gaps.length - 20} more`);
}
