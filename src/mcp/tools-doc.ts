import { z } from 'zod';
import { toolErrorSchema } from './errors.js';
import type { Tool } from './tool.js';
import { hiddenFromVendorOnly, notOnDemo, toolEntry, type ToolEntry } from './tool-table.js';

// docs/tools.md is rendered from what the server lists (names, annotations, input and output schemas, the shared error) and
// the tool table that decides where (kind, availability), so the reference can't drift from what
// an agent sees; a test fails when the committed file differs from this rendering
// (`npm run docs:tools` rewrites it).

interface JsonSchema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  maxLength?: number;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');

function typeOf(s: JsonSchema): string {
  if (s.enum) return s.enum.map((v) => `\`${String(v)}\``).join(' | ');
  if (s.anyOf) return s.anyOf.map(typeOf).join(' or ');
  if (s.type === 'array') return `${s.items ? typeOf(s.items) : 'any'}[]`;
  if (Array.isArray(s.type)) return s.type.join(' or ');
  return s.type ?? 'any';
}

/** Bounds a caller must respect, in the schema's own numbers. */
function bounds(s: JsonSchema): string {
  const parts = [
    // zod states an integer's safe range: no bound a caller must mind
    s.minimum !== undefined && s.minimum > Number.MIN_SAFE_INTEGER ? `≥ ${s.minimum}` : '',
    s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER ? `≤ ${s.maximum}` : '',
    s.minItems !== undefined ? `at least ${s.minItems}` : '',
    s.maxItems !== undefined ? `at most ${s.maxItems}` : '',
    s.maxLength !== undefined ? `at most ${s.maxLength} characters` : '',
  ].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** One row per argument, nested object fields as `parent.child` (array items as `parent[].child`). */
function rows(properties: Record<string, JsonSchema>, required: readonly string[], prefix = ''): string[] {
  return Object.entries(properties).flatMap(([name, s]) => {
    const path = `${prefix}${name}`;
    const row = `| \`${path}\` | ${cell(typeOf(s))} | ${required.includes(name) ? 'yes' : 'no'} | ${cell((s.description ?? '') + bounds(s))} |`;
    const nested = s.type === 'array' ? s.items : s;
    const children = nested?.properties
      ? rows(nested.properties, nested.required ?? [], `${path}${s.type === 'array' ? '[]' : ''}.`)
      : [];
    return [row, ...children];
  });
}

function availability(entry: ToolEntry): string {
  const where = notOnDemo(entry)
    ? '`/mcp` only (not on `/demo/mcp`)'
    : `\`/mcp\` and \`/demo/mcp\`${entry.availability.includes('simulated on demo') ? ' (the demo validates and simulates, recording nothing)' : ''}`;
  return hiddenFromVendorOnly(entry) ? `${where}; hidden from vendor-only users` : where;
}

/** The hints a client acts on, as words. */
function hints(tool: Tool): string {
  const a = tool.listing.annotations ?? {};
  return [
    a.readOnlyHint ? 'read-only' : 'writes',
    a.destructiveHint ? 'destructive' : 'not destructive',
    a.idempotentHint ? 'idempotent' : 'not idempotent',
    a.openWorldHint ? 'reaches the marketplace' : 'the service only',
  ].join(', ');
}

/** A schema's fields as a table, or `none` when it has none. */
function fields(schema: JsonSchema | undefined, head: string, none: string): string[] {
  if (!schema?.properties || Object.keys(schema.properties).length === 0) return [none];
  return [`| ${head} | meaning |`, '|---|---|---|---|', ...rows(schema.properties, schema.required ?? [])];
}

function section(tool: Tool): string {
  const { listing } = tool;
  const entry = toolEntry(tool.name);
  return [
    `## \`${tool.name}\``,
    '',
    `${listing.annotations?.title ?? tool.name}: ${entry.kind}; ${availability(entry)}; ${hints(tool)}.`,
    '',
    listing.description ?? '',
    '',
    ...fields(listing.inputSchema as JsonSchema, 'argument | type | required', 'No arguments.'),
    '',
    ...fields(
      listing.outputSchema as JsonSchema | undefined,
      'result field | type | always there',
      'No result schema.',
    ),
    '',
  ].join('\n');
}

/** The error result every tool shares. */
function errors(): string[] {
  const schema = z.toJSONSchema(toolErrorSchema, { io: 'output' }) as JsonSchema;
  return [
    '## Errors',
    '',
    'Every tool answers a known problem as a result with `isError: true` whose text is this JSON object (no structured content: the `outputSchema` describes the answer):',
    '',
    ...fields(schema, 'field | type | always there', ''),
    '',
  ];
}

export function renderToolsDoc(tools: readonly Tool[]): string {
  return [
    '# Tools',
    '',
    '<!-- Generated from src/mcp/tools/index.ts and src/mcp/tool-table.ts by `npm run docs:tools`; do not edit by hand. -->',
    '',
    'Every tool the MCP endpoints serve, in listing order, with its arguments and the fields of its result',
    '(its `outputSchema`). An extra argument is refused with `unknown_argument`; errors come back as',
    '`isError: true` with `{ code, detail }` (see [Errors](#errors)).',
    '',
    '| tool | kind | where |',
    '|---|---|---|',
    ...tools.map((t) => {
      const entry = toolEntry(t.name);
      return `| [\`${t.name}\`](#${t.name}) | ${entry.kind} | ${availability(entry)} |`;
    }),
    '',
    ...tools.map(section),
    ...errors(),
  ].join('\n');
}
