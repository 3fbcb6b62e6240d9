import { z } from 'zod';
import { DomainError } from '../../domain/shared/errors.js';
import { productTypeDefinitionSchema } from '../../marketplace/clients/selling-definitions-types.js';
import { accountArgument, sellingAccountsForRead } from '../accounts.js';
import { marketplaceIdArgument } from '../marketplace-argument.js';
import { PRODUCT_TYPE_SCHEMA_TTL_MS, productTypeSchema } from '../product-type-schemas.js';
import { defineTool } from '../tool.js';

// Spec 4.5: the product type's full JSON Schema (its properties are the listing's
// /attributes/), read from the Product Type Definitions API with requirements LISTING and
// cached 24 hours. Not on demo (spec 4.1): it calls the marketplace.

const definition = productTypeDefinitionSchema.shape;

export const getProductTypeSchema = defineTool({
  name: 'get_product_type_schema',
  description:
    "Returns the marketplace's full JSON Schema of a product type: `schema.properties` describes the listing's /attributes/ (the value shapes patch_listing takes, with selectors such as marketplace_id, currency and audience); `schema.required` describes a full listing, not every patch. With the definition's product type, marketplace, version, requirements and property groups. Cached 24 hours.",
  // reads the marketplace (open world) and changes nothing
  annotations: {
    title: 'Product type schema',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  input: {
    product_type: z
      .string()
      .trim()
      .toUpperCase()
      .regex(
        /^[A-Z0-9_]{1,100}$/,
        'a product type name such as PRODUCT, LUGGAGE or SHIRT (letters, digits, underscores)',
      )
      .describe('the product type, e.g. PRODUCT, LUGGAGE, SHIRT (see product_type in list_listings)'),
    marketplace_id: marketplaceIdArgument.describe(
      "a marketplace id; default: the account's first participating marketplace",
    ),
    account: accountArgument.describe(
      'an account id from connection_status; default: your first account with a selling connection',
    ),
  },
  output: z.object({
    product_type: z.string(),
    marketplace_id: z.string(),
    account_id: z.string().describe('the account whose connection read it'),
    display_name: z.string(),
    locale: z.string(),
    requirements: definition.requirements.describe('the requirement set the schema describes (LISTING)'),
    requirements_enforced: definition.requirementsEnforced,
    version: definition.productTypeVersion.describe("the definition's version: version, latest, releaseCandidate"),
    property_groups: definition.propertyGroups.describe(
      'groups of the schema properties by name: title, description, propertyNames',
    ),
    checksum: z.string().describe("the schema document's checksum (Base64 MD5)"),
    fetched_at: z.iso.datetime().describe('when the marketplace was read'),
    expires_at: z.iso.datetime().describe('when the cached copy is read afresh (24 hours later)'),
    schema: z
      .record(z.string(), z.unknown())
      .describe(
        "the product type's JSON Schema, as the marketplace sent it: properties are the listing's /attributes/",
      ),
  }),
  async handler(input, ctx) {
    const [account] = await sellingAccountsForRead(ctx, input.account);
    if (!account) throw new DomainError('not_connected', 'none of your accounts has a selling connection');
    const marketplaceId =
      input.marketplace_id ?? account.selling!.marketplaces.find((m) => m.participating)?.marketplace_id;
    if (!marketplaceId)
      throw new DomainError(
        'not_connected',
        `account ${account.id} (${account.name}) participates in no marketplace yet; pass marketplace_id`,
        { account: account.id },
      );
    const refreshToken = ctx.marketplace?.sellingRefreshToken;
    if (!ctx.marketplace || !refreshToken)
      throw new DomainError('not_connected', 'the service has no selling credentials to call the marketplace with');
    const { definition, schema, fetched_at } = await productTypeSchema(
      ctx.db,
      ctx.marketplace,
      refreshToken,
      input.product_type,
      marketplaceId,
      ctx.now(),
    );
    return {
      product_type: definition.productType,
      marketplace_id: marketplaceId,
      account_id: account.id,
      display_name: definition.displayName,
      locale: definition.locale,
      requirements: definition.requirements,
      requirements_enforced: definition.requirementsEnforced,
      version: definition.productTypeVersion,
      property_groups: definition.propertyGroups,
      checksum: definition.schema.checksum,
      fetched_at: fetched_at.toISOString(),
      expires_at: new Date(fetched_at.getTime() + PRODUCT_TYPE_SCHEMA_TTL_MS).toISOString(),
      schema,
    };
  },
});
