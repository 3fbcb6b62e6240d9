import { createHash } from 'node:crypto';
import { z } from 'zod';
import { MarketplaceError } from './errors.js';
import type { Http } from './http.js';
import { segment, type SellingCall } from './selling-call.js';
import {
  productTypeDefinitionSchema,
  productTypeListSchema,
  type ProductTypeDefinition,
  type ProductTypeList,
} from './selling-definitions-types.js';

export interface DefinitionsClient {
  /** searchDefinitionsProductTypes: the product types of one marketplace, optionally by keywords. */
  searchDefinitionsProductTypes(
    marketplaceId: string,
    options?: { keywords?: readonly string[]; locale?: string },
  ): Promise<ProductTypeList>;
  /** getDefinitionsProductType (requirements LISTING unless told). */
  getDefinitionsProductType(
    productType: string,
    marketplaceId: string,
    options?: { requirements?: ProductTypeDefinition['requirements']; locale?: string },
  ): Promise<ProductTypeDefinition>;
  /** The JSON Schema a definition links to, checked against the definition's checksum. */
  getSchemaDocument(definition: ProductTypeDefinition): Promise<Record<string, unknown>>;
}

const bytes = z.instanceof(Buffer);
const jsonObject = z.record(z.string(), z.unknown());

/** `call` for the authorized API; `http` for the linked document, a pre-signed link that takes no token. */
export function createDefinitionsClient(call: SellingCall, http: Http): DefinitionsClient {
  return {
    searchDefinitionsProductTypes: (marketplaceId, { keywords, locale } = {}) =>
      call({
        method: 'GET',
        path: '/definitions/2020-09-01/productTypes',
        query: { marketplaceIds: [marketplaceId], keywords, locale },
        schema: productTypeListSchema,
      }),
    getDefinitionsProductType: (productType, marketplaceId, { requirements = 'LISTING', locale } = {}) =>
      call({
        method: 'GET',
        path: `/definitions/2020-09-01/productTypes/${segment(productType)}`,
        query: { marketplaceIds: [marketplaceId], requirements, locale },
        schema: productTypeDefinitionSchema,
      }),
    async getSchemaDocument(definition) {
      const url = definition.schema.link.resource;
      const body = await http({ api: 'product type schema', method: 'GET', url, responseType: 'bytes', schema: bytes });
      const invalid = (why: string) =>
        new MarketplaceError({
          status: 200,
          code: 'invalid_response',
          message: `product type schema GET ${new URL(url).pathname}: ${why}`,
          retryable: false,
        });
      if (createHash('md5').update(body).digest('base64') !== definition.schema.checksum)
        throw invalid('the document does not match the checksum of its definition');
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        throw invalid('the document is not JSON');
      }
      const document = jsonObject.safeParse(parsed);
      if (!document.success) throw invalid('the document is not a JSON object');
      return document.data;
    },
  };
}
