import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { Knex } from '../infra/db.js';
import { canonicalJson, sha256 } from '../domain/shared/canonical.js';
import {
  METHODS,
  operationKey,
  type Content,
  type OperationContract,
  type OperationParameter,
  type OversizedStub,
  type Schema,
} from './operation.js';
import type { Provider } from './reviewed.js';
import { currentRevision } from './queries.js';
import { storeCatalog, type AcquiredCatalog, type SourceGap } from './storage.js';

// Acquire (decision 104): every Swagger 2.0 / OpenAPI 3 document under a folder, dereferenced by
// swagger-parser, normalized into one contract per operation and stored under a revision that is
// the digest of everything read. A document that cannot be cataloged is a source gap, recorded
// beside the revision; it never stops the rest.

/** Our own small documents: the default source, and what tests acquire. */
export const FIXTURE_SOURCE = fileURLToPath(new URL('../../../src/catalog/fixtures', import.meta.url));

/** Changes to normalization change every revision, so a new rule is never mixed with old rows. */
const NORMALIZATION = 'catalog-normalization-1';

/** A schema whose JSON is longer is shown with its largest parts kept aside (decision 106). */
export const INLINE_SCHEMA_BYTES = 16_384;

export interface AcquireOptions {
  /** the folder read (default: the fixture documents) */
  from?: string;
  /** schemas longer than this show their largest parts as `{ oversized: true }` */
  inlineBytes?: number;
}

/** Reads and normalizes the documents under `from` (no storage). */
export async function readCatalog(options: AcquireOptions = {}): Promise<AcquiredCatalog> {
  const from = options.from ?? FIXTURE_SOURCE;
  const files = (await documentsUnder(from)).sort();
  const contents = await Promise.all(files.map((f) => readFile(join(from, f))));
  const revision = sha256(
    [
      NORMALIZATION,
      String(options.inlineBytes ?? INLINE_SCHEMA_BYTES),
      ...files.map((f, i) => `${f}\0${sha256(contents[i]!)}`),
    ].join('\n'),
  );
  const gaps: SourceGap[] = [];
  const operations = new Map<string, OperationContract>();
  const parts = new Map<string, unknown>();
  for (const [i, file] of files.entries()) {
    const read = await readDocument(from, file, contents[i]!, options.inlineBytes ?? INLINE_SCHEMA_BYTES, parts);
    if ('gap' in read) {
      gaps.push(read.gap);
      continue;
    }
    for (const op of read.operations) {
      if (operations.has(op.key)) {
        gaps.push({
          document: file,
          family: op.family,
          kind: 'duplicate_operation',
          detail: `${op.key} is declared again; the first declaration is kept`,
        });
        continue;
      }
      operations.set(op.key, op);
    }
  }
  return { revision, source: from, documents: files.length, gaps, operations: [...operations.values()], parts };
}

/** Reads, stores and selects a catalog; the same documents as the selected revision store nothing. */
export async function acquireCatalog(
  db: Knex,
  options: AcquireOptions = {},
  now = new Date(),
): Promise<{ catalog: AcquiredCatalog; stored: boolean }> {
  const catalog = await readCatalog(options);
  const stored = await storeCatalog(db, catalog, now);
  return { catalog, stored };
}

async function documentsUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.(json|ya?ml)$/i.test(e.name))
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'));
}

/** `selling-api/…` is the selling API's, `ads-api/…` the advertising API's; elsewhere Swagger 2.0 is the selling API's. */
function providerOf(file: string, doc: Record<string, unknown>): Provider {
  if (/(^|\/)selling-api\//.test(file)) return 'sp_api';
  if (/(^|\/)ads-api\//.test(file)) return 'ads_api';
  return doc.swagger !== undefined ? 'sp_api' : 'ads_api';
}

const kebab = (text: string) =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** The selling API's model folder (`models/orders-api-model/…` → `orders`), else the document's title (`Sponsored Products` → `sponsored-products`). */
function familyOf(file: string, title: unknown): string {
  const folders = file.split('/').slice(0, -1);
  const models = folders.lastIndexOf('models');
  if (models >= 0 && folders[models + 1]) return folders[models + 1]!.replace(/(-api)?-model$/, '');
  if (typeof title === 'string' && kebab(title)) return kebab(title);
  return kebab(
    file
      .split('/')
      .pop()!
      .replace(/(_prod_3p)?\.(json|ya?ml)$/i, ''),
  );
}

type Read = { gap: SourceGap } | { operations: OperationContract[] };

async function readDocument(
  root: string,
  file: string,
  bytes: Buffer,
  inlineBytes: number,
  parts: Map<string, unknown>,
): Promise<Read> {
  const gap = (kind: SourceGap['kind'], family: string | null, detail: string): Read => ({
    gap: { document: file, family, kind, detail },
  });
  let doc: Record<string, unknown>;
  try {
    // YAML through swagger-parser's own reader (it refuses a YAML file that is no API document)
    doc = /\.json$/i.test(file)
      ? JSON.parse(bytes.toString('utf8'))
      : ((await SwaggerParser.parse(join(root, file))) as never);
  } catch (err) {
    return gap('malformed', familyOf(file, undefined), `not parseable: ${(err as Error).message.slice(0, 200)}`);
  }
  const info = (doc?.info ?? {}) as Record<string, unknown>;
  const family = familyOf(file, info.title);
  const contract = doc && typeof doc === 'object' && (doc.swagger === '2.0' || /^3\./.test(String(doc.openapi ?? '')));
  if (!contract) return gap('no_contract', family, 'neither a Swagger 2.0 nor an OpenAPI 3 document');
  if (!doc.paths || typeof doc.paths !== 'object' || Object.keys(doc.paths).length === 0)
    return gap('no_contract', family, 'declares no paths');
  if (info.version === undefined || info.version === null || String(info.version) === '')
    return gap('no_contract', family, 'declares no info.version');
  const parser = new SwaggerParser();
  let api: Record<string, unknown>;
  try {
    api = (await parser.dereference(doc as never, {
      resolve: { external: false },
      dereference: { circular: 'ignore' },
    })) as never;
  } catch (err) {
    return gap('unresolvable_refs', family, `references that do not resolve: ${(err as Error).message.slice(0, 300)}`);
  }
  const provider = providerOf(file, doc);
  const version = String(info.version);
  const documentDigest = sha256(bytes);
  const shaper = new SchemaShaper(inlineBytes, parts, (ref) => {
    try {
      return { id: sha256(`${documentDigest}#${ref}`), target: parser.$refs.get(ref) as Schema };
    } catch {
      return null;
    }
  });
  const operations: OperationContract[] = [];
  for (const [path, item] of Object.entries(api.paths as Record<string, Record<string, unknown>>)) {
    if (!item || typeof item !== 'object') continue;
    const shared = (item.parameters ?? []) as Record<string, unknown>[];
    for (const method of METHODS) {
      const op = item[method.toLowerCase()] as Record<string, unknown> | undefined;
      if (!op || typeof op !== 'object') continue;
      const operationId =
        typeof op.operationId === 'string' && op.operationId ? op.operationId : kebab(`${method} ${path}`);
      const contract =
        api.swagger !== undefined ? swaggerOperation(api, op, shared, shaper) : openApiOperation(op, shared, shaper);
      operations.push({
        key: operationKey(provider, family, version, operationId),
        provider,
        family,
        version,
        operationId,
        method,
        path,
        summary: oneLine(op.summary) ?? oneLine(firstSentence(op.description)),
        description: typeof op.description === 'string' ? op.description : null,
        deprecated: op.deprecated === true,
        tags: Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === 'string') : [],
        ...contract,
      });
    }
  }
  if (operations.length === 0) return gap('no_contract', family, 'its paths declare no operation');
  shaper.finish();
  return { operations };
}

const oneLine = (text: unknown): string | null =>
  typeof text === 'string' && text.trim() ? text.replace(/\s+/g, ' ').trim().slice(0, 200) : null;
const firstSentence = (text: unknown): string | null =>
  typeof text === 'string' ? (text.split(/(?<=\.)\s|\n\n/)[0] ?? null) : null;

type Contract = Pick<OperationContract, 'parameters' | 'request' | 'responses'>;

/** Parameters by (in, name): the operation's own win over its path's. */
function mergeParameters(shared: Record<string, unknown>[], own: unknown): Record<string, unknown>[] {
  const all = new Map<string, Record<string, unknown>>();
  for (const p of [...shared, ...((own ?? []) as Record<string, unknown>[])])
    if (p && typeof p === 'object' && typeof p.name === 'string') all.set(`${String(p.in)}:${p.name}`, p);
  return [...all.values()];
}

const PARAMETER_KEYS = new Set(['name', 'in', 'required', 'description', 'allowEmptyValue', 'collectionFormat']);

function swaggerOperation(
  api: Record<string, unknown>,
  op: Record<string, unknown>,
  shared: Record<string, unknown>[],
  shaper: SchemaShaper,
): Contract {
  const params = mergeParameters(shared, op.parameters);
  const consumes = (op.consumes ?? api.consumes ?? ['application/json']) as string[];
  const produces = (op.produces ?? api.produces ?? ['application/json']) as string[];
  const parameters: OperationParameter[] = params
    .filter((p) => p.in !== 'body' && p.in !== 'formData')
    .map((p) => ({
      name: String(p.name),
      in: String(p.in),
      required: p.required === true,
      description: typeof p.description === 'string' ? p.description : null,
      // a Swagger 2.0 parameter carries its schema's keywords itself
      schema: shaper.shape(Object.fromEntries(Object.entries(p).filter(([k]) => !PARAMETER_KEYS.has(k)))),
    }));
  const body = params.find((p) => p.in === 'body');
  const form = params.filter((p) => p.in === 'formData');
  let request: Contract['request'] = null;
  if (body) {
    const schema = shaper.shape(body.schema as Schema | undefined);
    request = { required: body.required === true, content: Object.fromEntries(consumes.map((m) => [m, schema])) };
  } else if (form.length > 0) {
    const schema = shaper.shape({
      type: 'object',
      properties: Object.fromEntries(
        form.map((p) => [
          String(p.name),
          Object.fromEntries(Object.entries(p).filter(([k]) => !PARAMETER_KEYS.has(k) || k === 'description')),
        ]),
      ),
      required: form.filter((p) => p.required === true).map((p) => String(p.name)),
    });
    request = {
      required: form.some((p) => p.required === true),
      content: Object.fromEntries(consumes.map((m) => [m, schema])),
    };
  }
  const responses: Contract['responses'] = {};
  for (const [status, r] of Object.entries((op.responses ?? {}) as Record<string, Record<string, unknown>>)) {
    if (!r || typeof r !== 'object') continue;
    const schema = r.schema ? shaper.shape(r.schema as Schema) : null;
    responses[status] = {
      description: typeof r.description === 'string' ? r.description : null,
      content: schema ? Object.fromEntries(produces.map((m) => [m, schema])) : {},
    };
  }
  return { parameters, request, responses };
}

function openApiOperation(
  op: Record<string, unknown>,
  shared: Record<string, unknown>[],
  shaper: SchemaShaper,
): Contract {
  const contentOf = (content: unknown): Content =>
    Object.fromEntries(
      Object.entries((content ?? {}) as Record<string, Record<string, unknown>>).map(([media, m]) => [
        media,
        shaper.shape(m?.schema as Schema | undefined),
      ]),
    );
  const parameters: OperationParameter[] = mergeParameters(shared, op.parameters).map((p) => {
    const media = Object.values((p.content ?? {}) as Record<string, Record<string, unknown>>)[0];
    return {
      name: String(p.name),
      in: String(p.in),
      required: p.required === true,
      description: typeof p.description === 'string' ? p.description : null,
      schema: shaper.shape((p.schema ?? media?.schema) as Schema | undefined),
    };
  });
  const body = op.requestBody as Record<string, unknown> | undefined;
  const request =
    body && typeof body === 'object' ? { required: body.required === true, content: contentOf(body.content) } : null;
  const responses: Contract['responses'] = {};
  for (const [status, r] of Object.entries((op.responses ?? {}) as Record<string, Record<string, unknown>>)) {
    if (!r || typeof r !== 'object') continue;
    responses[status] = {
      description: typeof r.description === 'string' ? r.description : null,
      content: contentOf(r.content),
    };
  }
  return { parameters, request, responses };
}

/** Keys that describe a schema to people or tools, not the values it admits. */
const PRUNED = new Set(['example', 'examples', 'xml', 'externalDocs']);
/** Where a schema holds schemas: one under each key, or one per entry. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/**
 * Turns a dereferenced schema into what the catalog stores: pruned of examples and vendor
 * extensions, and, past the inline size, its largest subschemas kept aside as parts. With
 * `circular: 'ignore'` swagger-parser leaves every `$ref` of a cycle in place: each is expanded
 * here once (through the parser's own `$refs`), and where it recurs inside itself it stays a
 * `$ref` beside the part holding its target. Work is shared by object identity: swagger-parser
 * gives one object to every place that referenced the same definition.
 */
class SchemaShaper {
  private readonly pruned = new WeakMap<object, Schema>();
  private readonly sizes = new WeakMap<object, number>();
  private readonly split = new WeakMap<object, Schema>();
  /** pointer → its target, pruned (with itself as a `$ref` stub inside) */
  private readonly expanded = new Map<string, Schema | null>();
  private readonly expanding = new Set<string>();
  /** pointers that recur inside themselves → their part's id */
  private readonly recursive = new Map<string, string>();

  constructor(
    private readonly inlineBytes: number,
    private readonly parts: Map<string, unknown>,
    private readonly resolve: (ref: string) => { id: string; target: Schema } | null,
  ) {}

  shape(schema: Schema | undefined | null): Schema | null {
    if (!schema || typeof schema !== 'object') return null;
    return this.fit(this.prune(schema));
  }

  /** Stores the parts of the document's recursive references (once every one is expanded). */
  finish(): void {
    for (const [ref, id] of this.recursive) {
      const target = this.expanded.get(ref);
      if (target) this.parts.set(id, this.fit(target));
    }
  }

  private prune(node: Schema): Schema {
    const done = this.pruned.get(node);
    if (done) return done;
    if (typeof node.$ref === 'string') return this.reference(node.$ref);
    const out: Schema = {};
    this.pruned.set(node, out);
    for (const [key, value] of Object.entries(node)) {
      if (PRUNED.has(key) || key.startsWith('x-')) continue;
      out[key] = this.pruneValue(key, value);
    }
    return out;
  }

  /** A `$ref` left by the parser: its target expanded, or inside that expansion a stub naming its part. */
  private reference(ref: string): Schema {
    const expanded = this.expanded.get(ref);
    if (expanded) return expanded;
    const resolved = this.resolve(ref);
    if (!resolved || !resolved.target || typeof resolved.target !== 'object') return { $ref: ref };
    if (this.expanding.has(ref)) {
      this.recursive.set(ref, resolved.id);
      return { $ref: ref, part: resolved.id };
    }
    this.expanding.add(ref);
    const target = this.prune(resolved.target);
    this.expanding.delete(ref);
    this.expanded.set(ref, target);
    return target;
  }

  private pruneValue(key: string, value: unknown): unknown {
    if (!value || typeof value !== 'object') return value;
    if (SCHEMA_MAPS.has(key) && !Array.isArray(value))
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [
          k,
          v && typeof v === 'object' ? this.prune(v as Schema) : v,
        ]),
      );
    if (SCHEMA_LISTS.has(key) && Array.isArray(value))
      return value.map((v: unknown) => (v && typeof v === 'object' ? this.prune(v as Schema) : v));
    if ((key === 'items' || key === 'additionalProperties' || key === 'not') && !Array.isArray(value))
      return this.prune(value as Schema);
    return value;
  }

  /** JSON length, by structure (shared subschemas are measured once). */
  private size(value: unknown): number {
    if (!value || typeof value !== 'object') return JSON.stringify(value ?? null).length;
    const known = this.sizes.get(value);
    if (known !== undefined) return known;
    let total = 2;
    if (Array.isArray(value)) total += value.reduce((sum: number, v) => sum + this.size(v) + 1, 0);
    else for (const [k, v] of Object.entries(value)) total += k.length + 4 + this.size(v);
    this.sizes.set(value, total);
    return total;
  }

  /** The schema within the inline size: its subschemas fitted first, then the largest kept aside. */
  private fit(node: Schema): Schema {
    if (this.size(node) <= this.inlineBytes) return node;
    const done = this.split.get(node);
    if (done) return done;
    const out: Schema = { ...node };
    this.split.set(node, out);
    const slots: { get: () => unknown; set: (v: Schema | OversizedStub) => void }[] = [];
    // copies whose measured size goes stale as their entries are put aside
    const containers: object[] = [out];
    for (const [key, value] of Object.entries(out)) {
      if (!value || typeof value !== 'object') continue;
      if (SCHEMA_MAPS.has(key) && !Array.isArray(value)) {
        const map: Record<string, unknown> = { ...(value as Record<string, unknown>) };
        out[key] = map;
        containers.push(map);
        for (const k of Object.keys(map)) slots.push({ get: () => map[k], set: (v) => (map[k] = v) });
      } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
        const list: unknown[] = [...(value as unknown[])];
        out[key] = list;
        containers.push(list);
        for (const i of list.keys()) slots.push({ get: () => list[i], set: (v) => (list[i] = v) });
      } else if ((key === 'items' || key === 'additionalProperties' || key === 'not') && !Array.isArray(value)) {
        slots.push({ get: () => out[key], set: (v) => (out[key] = v) });
      }
    }
    for (const slot of slots) {
      const child = slot.get();
      if (child && typeof child === 'object') slot.set(this.fit(child as Schema));
    }
    const bySize = slots
      .filter((s) => {
        const v = s.get();
        return v && typeof v === 'object' && (v as Schema).oversized !== true;
      })
      .sort((a, b) => this.size(b.get()) - this.size(a.get()));
    let total = this.size(out);
    for (const slot of bySize) {
      if (total <= this.inlineBytes) break;
      const child = slot.get() as Schema;
      const stub = this.aside(child);
      total -= this.size(child) - this.size(stub);
      slot.set(stub);
    }
    for (const c of containers) this.sizes.delete(c);
    return out;
  }

  private aside(part: Schema): OversizedStub {
    const digest = sha256(canonicalJson(part));
    this.parts.set(digest, part);
    return { oversized: true, part: digest, bytes: this.size(part) };
  }
}

/**
 * At service start: the fixture documents become the catalog when none was ever acquired (a
 * fraction of a second), so discovery answers from the first call; an operator's acquire of the
 * full documents is kept across restarts.
 */
export async function ensureCatalog(db: Knex): Promise<string | null> {
  if ((await currentRevision(db)) !== null) return null;
  const { catalog } = await acquireCatalog(db);
  return catalog.revision;
}
