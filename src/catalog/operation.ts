import { canonicalJson, sha256 } from '../domain/shared/canonical.js';
import type { Provider } from './reviewed.js';

// The normalized contract of one cataloged operation, the same for Swagger 2.0 and OpenAPI 3
// documents: parameters outside the body with their schemas, request bodies and responses by
// media type, schemas dereferenced (a recursive one keeps its `$ref` beside a `resource`), and
// schema parts too large to show inline kept aside as `{ oversized: true, part }`.

/** Spec 4.9's five methods (decision 106); an operation under another verb is not cataloged. */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof METHODS)[number];

/** A JSON Schema as the documents state it, pruned of examples and vendor extensions. */
export type Schema = Record<string, unknown>;

export interface OperationParameter {
  name: string;
  /** `path`, `query`, `header` (OpenAPI 3's `cookie` too); a Swagger `formData` parameter is a request body field */
  in: string;
  required: boolean;
  description: string | null;
  schema: Schema | null;
}

/** Media type → schema (null when the document declares the type without a schema). */
export type Content = Record<string, Schema | null>;

export interface OperationContract {
  key: string;
  provider: Provider;
  family: string;
  /** the document's `info.version` */
  version: string;
  operationId: string;
  method: HttpMethod;
  path: string;
  summary: string | null;
  description: string | null;
  deprecated: boolean;
  tags: string[];
  parameters: OperationParameter[];
  request: { required: boolean; content: Content } | null;
  /** by HTTP status as written (`200`, `4XX`, `default`) */
  responses: Record<string, { description: string | null; content: Content }>;
}

/** A schema part kept aside: its digest addresses it (the same part is stored once). */
export interface OversizedStub {
  oversized: true;
  part: string;
  bytes: number;
}

/** sha256 of the canonical JSON of the operation's normalized contract. */
export function schemaDigest(contract: OperationContract): string {
  return sha256(canonicalJson(contract));
}

/** Whether the operation declares any schema: a parameter's, a request body's or a response's. */
export function hasSchema(contract: OperationContract): boolean {
  const some = (content: Content) => Object.values(content).some((s) => s !== null);
  return (
    contract.parameters.some((p) => p.schema !== null) ||
    (contract.request !== null && some(contract.request.content)) ||
    Object.values(contract.responses).some((r) => some(r.content))
  );
}

export function operationKey(provider: Provider, family: string, version: string, operationId: string): string {
  return `${provider}:${family}:${version}:${operationId}`;
}
