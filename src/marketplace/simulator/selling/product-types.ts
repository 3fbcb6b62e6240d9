import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sellingError } from '../api-errors.js';
import { CONDITION_TOKENS } from '../catalog.js';
import { MARKETPLACES, type SimMarketplace } from '../marketplaces.js';
import { sellingRoute, type TokenStore } from '../tokens.js';
import { fbaChannelCode } from './listings.js';
import { csv } from './page-token.js';

// Product Type Definitions API 2020-09-01: searchDefinitionsProductTypes and
// getDefinitionsProductType. A definition links to its JSON Schema document (the real API
// links a pre-signed S3 object, fetched without the access token), which the simulator serves
// too, with the Base64 MD5 checksum the definition states. Attributes use the provider's
// shape: arrays of values with selectors (marketplace_id, currency, audience, ...).

type Requirements = 'LISTING' | 'LISTING_PRODUCT_ONLY' | 'LISTING_OFFER_ONLY';
const REQUIREMENTS: readonly Requirements[] = ['LISTING', 'LISTING_PRODUCT_ONLY', 'LISTING_OFFER_ONLY'];
type Json = Record<string, unknown>;

interface SimProductType {
  name: string;
  displayName: string;
  /** type-specific attributes, and which of them a full listing requires */
  extra: (m: SimMarketplace) => Record<string, Json>;
  required: readonly string[];
  /** marketplaces without a definition of this type (404 there) */
  missingIn?: readonly string[];
}

const SCHEMA_PATH = '/_schemas/definitions/2020-09-01';
const META_SCHEMA = 'https://schemas.amazon.com/selling-partners/definitions/product-types/meta-schema/v1';
const OFFER_ATTRIBUTES = [
  'purchasable_offer',
  'fulfillment_availability',
  'condition_type',
  'list_price',
  'merchant_shipping_group',
];

const text = (maxLength: number) => ({ title: 'Value', type: 'string', minLength: 1, maxLength });
const marketplaceId = (m: SimMarketplace) => ({
  title: 'Marketplace Id',
  type: 'string',
  enum: [m.id],
  editable: false,
  hidden: true,
});
const languageTag = (m: SimMarketplace) => ({
  title: 'Language Tag',
  type: 'string',
  enum: [m.languageCode],
  enumNames: [m.languageCode],
});

/** An attribute as product type schemas define one: an array of values told apart by selectors. */
function attribute(
  title: string,
  description: string,
  selectors: string[],
  properties: Record<string, Json>,
  required: string[],
  limits: Json = { minUniqueItems: 1, maxUniqueItems: 1 },
): Json {
  return {
    title,
    description,
    type: 'array',
    minItems: 1,
    ...limits,
    selectors,
    items: { type: 'object', required, properties, additionalProperties: false },
  };
}

const localized = (m: SimMarketplace, title: string, description: string, maxLength: number, limits?: Json) =>
  attribute(
    title,
    description,
    ['marketplace_id', 'language_tag'],
    { value: text(maxLength), language_tag: languageTag(m), marketplace_id: marketplaceId(m) },
    ['value', 'language_tag'],
    limits,
  );

const enumerated = (m: SimMarketplace, title: string, description: string, values: readonly string[]) =>
  attribute(
    title,
    description,
    ['marketplace_id'],
    { value: { title, type: 'string', enum: [...values] }, marketplace_id: marketplaceId(m) },
    ['value'],
  );

/** our_price and the seller-allowed bounds: one schedule entry with the amount in major units. */
function schedule(m: SimMarketplace, title: string, description: string): Json {
  return {
    title,
    description,
    type: 'array',
    maxItems: 1,
    items: {
      type: 'object',
      required: ['schedule'],
      properties: {
        schedule: {
          type: 'array',
          maxItems: 1,
          items: {
            type: 'object',
            required: ['value_with_tax'],
            properties: {
              value_with_tax: {
                title: 'Price',
                description: `Amount in ${m.currencyCode}, tax included`,
                type: 'number',
                exclusiveMinimum: 0,
                multipleOf: m.currencyCode === 'JPY' ? 1 : 0.01,
              },
            },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
  };
}

function commonAttributes(m: SimMarketplace): Record<string, Json> {
  const currency = { title: 'Currency', type: 'string', enum: [m.currencyCode] };
  return {
    item_name: localized(m, 'Item Name', 'Provide a title for the item that may be customer facing', 200),
    brand: localized(m, 'Brand Name', 'Provide the brand name of the product', 100),
    bullet_point: localized(
      m,
      'Bullet Point',
      'Brief descriptive text, called out via a bullet point, regarding a specific aspect of the product',
      500,
      { minUniqueItems: 1, maxUniqueItems: 5 },
    ),
    product_description: localized(m, 'Product Description', 'Provide a text description of the product', 2000),
    externally_assigned_product_identifier: attribute(
      'External Product ID',
      'Provide the external ID (barcode) type and the product ID that will be used to identify the product',
      ['marketplace_id', 'type'],
      {
        type: { title: 'Type', type: 'string', enum: ['ean', 'gtin', 'upc', 'isbn'] },
        value: { title: 'Value', type: 'string', pattern: '^[0-9]{8,14}$' },
        marketplace_id: marketplaceId(m),
      },
      ['type', 'value'],
    ),
    country_of_origin: enumerated(m, 'Country of Origin', 'Provide the country the item was produced in', [
      'CN',
      'DE',
      'GB',
      'JP',
      'US',
      'VN',
    ]),
    condition_type: enumerated(
      m,
      'Item Condition',
      'Provide the condition of the item',
      Object.values(CONDITION_TOKENS).flat(),
    ),
    list_price: attribute(
      'List Price',
      "Provide the list price (the manufacturer's suggested retail price), not the offer's price",
      ['marketplace_id', 'currency'],
      {
        currency,
        value_with_tax: { title: 'List Price', type: 'number', exclusiveMinimum: 0 },
        marketplace_id: marketplaceId(m),
      },
      ['currency', 'value_with_tax'],
    ),
    merchant_shipping_group: enumerated(
      m,
      'Merchant Shipping Group',
      'The shipping template the seller assigned to the offer',
      ['legacy-template-id-1', 'legacy-template-id-2', 'legacy-template-id-3'],
    ),
    purchasable_offer: attribute(
      'Purchasable Offer',
      'The attribute indicates the purchasable offer of the product',
      ['marketplace_id', 'currency', 'audience'],
      {
        marketplace_id: marketplaceId(m),
        currency,
        audience: {
          title: 'Audience',
          type: 'string',
          enum: ['ALL', 'B2B'],
          enumNames: ['Sell on Amazon', 'Amazon Business (B2B)'],
          default: 'ALL',
        },
        our_price: schedule(m, 'Your Price', 'The price at which the merchant offers the product for sale'),
        minimum_seller_allowed_price: schedule(
          m,
          'Minimum Seller Allowed Price',
          'The minimum price the seller accepts for the product (automated pricing floor)',
        ),
        maximum_seller_allowed_price: schedule(
          m,
          'Maximum Seller Allowed Price',
          'The maximum price the seller accepts for the product (automated pricing ceiling)',
        ),
        start_at: {
          title: 'Start At',
          type: 'object',
          properties: { value: { type: 'string', format: 'date-time' } },
          additionalProperties: false,
        },
        end_at: {
          title: 'End At',
          type: 'object',
          properties: { value: { type: 'string', format: 'date-time' } },
          additionalProperties: false,
        },
      },
      ['marketplace_id', 'currency', 'audience'],
      { minUniqueItems: 1, maxUniqueItems: 2 },
    ),
    fulfillment_availability: attribute(
      'Fulfillment Availability',
      'For those merchants using Amazon fulfillment services, this designates which fulfillment network will be used',
      ['fulfillment_channel_code'],
      {
        fulfillment_channel_code: {
          title: 'Fulfillment Channel Code',
          type: 'string',
          enum: ['DEFAULT', fbaChannelCode(m.id)],
        },
        quantity: {
          title: 'Quantity',
          description: 'Units the merchant can ship (DEFAULT channel only)',
          type: 'integer',
          minimum: 0,
        },
        lead_time_to_ship_max_days: {
          title: 'Handling Time',
          description: 'Business days to ship an order',
          type: 'integer',
          minimum: 0,
          maximum: 30,
        },
        restock_date: { title: 'Restock Date', type: 'string', format: 'date' },
        is_inventory_available: { title: 'Inventory Always Available', type: 'boolean' },
      },
      ['fulfillment_channel_code'],
    ),
  };
}

const color = (m: SimMarketplace) => localized(m, 'Color', 'Provide the color of the product', 100);
const material = (m: SimMarketplace) =>
  localized(m, 'Material', 'Provide the material the product is made of', 100, {
    minUniqueItems: 1,
    maxUniqueItems: 3,
  });

const PRODUCT_TYPES: readonly SimProductType[] = [
  { name: 'PRODUCT', displayName: 'Product', extra: () => ({}), required: [] },
  {
    name: 'LUGGAGE',
    displayName: 'Luggage',
    extra: (m) => ({
      color: color(m),
      material: material(m),
      number_of_wheels: attribute(
        'Number of Wheels',
        'Provide the number of wheels',
        ['marketplace_id'],
        { value: { type: 'integer', minimum: 0, maximum: 8 }, marketplace_id: marketplaceId(m) },
        ['value'],
      ),
      capacity: attribute(
        'Capacity',
        'Provide the volume the luggage holds',
        ['marketplace_id'],
        {
          value: { type: 'number', exclusiveMinimum: 0 },
          unit: { type: 'string', enum: ['liters', 'cubic_inches'] },
          marketplace_id: marketplaceId(m),
        },
        ['value', 'unit'],
      ),
    }),
    required: ['color', 'material'],
  },
  {
    name: 'SHIRT',
    displayName: 'Shirt',
    extra: (m) => ({
      color: color(m),
      size: attribute(
        'Apparel Size',
        'Provide the size of the item',
        ['marketplace_id'],
        {
          size_system: { type: 'string', enum: ['as1', 'as2', 'as3'] },
          size_class: { type: 'string', enum: ['alpha', 'numeric'] },
          size: { type: 'string', enum: ['x_s', 's', 'm', 'l', 'x_l', 'xx_l'] },
          marketplace_id: marketplaceId(m),
        },
        ['size_system', 'size_class', 'size'],
      ),
      department: localized(m, 'Department', 'Provide the department the product is sold under', 50),
      fabric_type: localized(m, 'Fabric Type', 'Provide the fabric composition of the product', 200),
    }),
    required: ['color', 'size', 'department'],
    // not sold as a product type in this marketplace: a definition exists elsewhere only
    missingIn: ['A1VC38T7YXB528'],
  },
  // the catalog's product types, so every simulated listing has a definition
  ...['HOME', 'KITCHEN', 'OFFICE_PRODUCTS', 'PET_SUPPLIES', 'SPORTING_GOODS', 'TOY_FIGURE', 'DRINKING_CUP'].map(
    (name): SimProductType => ({
      name,
      displayName: name
        .split('_')
        .map((w) => w[0] + w.slice(1).toLowerCase())
        .join(' '),
      extra: (m) => ({ color: color(m), material: material(m) }),
      required: ['color'],
    }),
  ),
];

const COMMON_REQUIRED = [
  'item_name',
  'brand',
  'bullet_point',
  'product_description',
  'externally_assigned_product_identifier',
  'condition_type',
  'purchasable_offer',
  'fulfillment_availability',
];
const GROUPS: Record<string, { title: string; description: string; names: readonly string[] }> = {
  offer: {
    title: 'Offer',
    description: 'Label the offer with its condition, price and fulfillment',
    names: ['condition_type', 'purchasable_offer', 'list_price'],
  },
  shipping: {
    title: 'Shipping',
    description: 'How the offer ships',
    names: ['fulfillment_availability', 'merchant_shipping_group'],
  },
  product_identity: {
    title: 'Product Identity',
    description: 'Identify the product',
    names: ['item_name', 'brand', 'externally_assigned_product_identifier'],
  },
  product_details: {
    title: 'Product Details',
    description: 'Describe the product',
    names: [
      'bullet_point',
      'product_description',
      'country_of_origin',
      'color',
      'material',
      'size',
      'department',
      'fabric_type',
      'number_of_wheels',
      'capacity',
    ],
  },
};

/** The product type's version identifier: stable per type, as the provider's look. */
const versionOf = (pt: SimProductType) => `U${createHash('sha1').update(pt.name).digest('base64url').slice(0, 32)}`;
const SEARCH_VERSION = 'U1Ojt9wX-Tz3Xm0xvXyvXzQ';

interface SchemaDocument {
  body: string;
  checksum: string;
}

function buildDocument(pt: SimProductType, m: SimMarketplace, requirements: Requirements, id: string): SchemaDocument {
  const all = { ...commonAttributes(m), ...pt.extra(m) };
  const keep = (name: string) =>
    requirements === 'LISTING' ? true : (requirements === 'LISTING_OFFER_ONLY') === OFFER_ATTRIBUTES.includes(name);
  const properties = Object.fromEntries(Object.entries(all).filter(([name]) => keep(name)));
  const schema = {
    $schema: META_SCHEMA,
    $id: id,
    $comment: `Amazon product type definition for ${pt.name} product type`,
    type: 'object',
    required: [...COMMON_REQUIRED, ...pt.required].filter((name) => name in properties),
    properties,
  };
  const body = JSON.stringify(schema);
  return { body, checksum: createHash('md5').update(body).digest('base64') };
}

export function registerProductTypes(app: FastifyInstance, tokens: TokenStore): void {
  const route = sellingRoute(tokens);
  const documents = new Map<string, SchemaDocument>();
  const documentPath = (pt: SimProductType, m: SimMarketplace, requirements: Requirements) =>
    `${SCHEMA_PATH}/${pt.name}/${m.id}/${requirements}/${versionOf(pt)}.json`;
  const documentOf = (pt: SimProductType, m: SimMarketplace, requirements: Requirements, origin: string) => {
    const path = documentPath(pt, m, requirements);
    let doc = documents.get(path);
    if (!doc) documents.set(path, (doc = buildDocument(pt, m, requirements, `${origin}${path}`)));
    return { path, doc };
  };
  const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
  const available = (pt: SimProductType, m: SimMarketplace) => !pt.missingIn?.includes(m.id);

  /** The one marketplace of the request (the API takes exactly one), or undefined with the 400 sent. */
  const marketplaceOf = (reply: FastifyReply, value: string | undefined) => {
    reply.header('x-amzn-RateLimit-Limit', '5');
    const ids = csv(value);
    const m = ids.length === 1 ? MARKETPLACES.find((m) => m.id === ids[0]) : undefined;
    if (!m)
      void reply
        .code(400)
        .send(
          sellingError('InvalidInput', 'Invalid input.', 'marketplaceIds must name exactly one supported marketplace.'),
        );
    return m;
  };

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/definitions/2020-09-01/productTypes',
    route,
    async (request, reply) => {
      const m = marketplaceOf(reply, request.query.marketplaceIds);
      if (!m) return reply;
      const { keywords, itemName } = request.query;
      if (keywords !== undefined && itemName !== undefined)
        return reply
          .code(400)
          .send(sellingError('InvalidInput', 'Invalid input.', 'keywords and itemName cannot be used together.'));
      const words = [...csv(keywords), ...(itemName ?? '').split(/\s+/).filter(Boolean)].map((w) => w.toLowerCase());
      const matches = (pt: SimProductType) =>
        words.length === 0 ||
        words.some((w) => pt.name.toLowerCase().includes(w) || pt.displayName.toLowerCase().includes(w));
      return {
        productTypes: PRODUCT_TYPES.filter((pt) => available(pt, m) && matches(pt)).map((pt) => ({
          name: pt.name,
          displayName: pt.displayName,
          marketplaceIds: [m.id],
        })),
        productTypeVersion: SEARCH_VERSION,
      };
    },
  );

  app.get<{ Params: { productType: string }; Querystring: Record<string, string | undefined> }>(
    '/definitions/2020-09-01/productTypes/:productType',
    route,
    async (request, reply) => {
      const m = marketplaceOf(reply, request.query.marketplaceIds);
      if (!m) return reply;
      const requirements = (request.query.requirements ?? 'LISTING') as Requirements;
      if (!REQUIREMENTS.includes(requirements))
        return reply
          .code(400)
          .send(sellingError('InvalidInput', 'Invalid input.', `requirements: unknown value ${requirements}.`));
      const pt = PRODUCT_TYPES.find((p) => p.name === request.params.productType);
      if (!pt || !available(pt, m)) {
        return reply
          .code(404)
          .send(
            sellingError(
              'NOT_FOUND',
              'Resource not found.',
              `Product type definition not found for ${request.params.productType} in marketplace ${m.id}.`,
            ),
          );
      }
      const locale =
        !request.query.locale || request.query.locale === 'DEFAULT' ? m.languageCode : request.query.locale;
      const { path, doc } = documentOf(pt, m, requirements, origin(request));
      const names = Object.keys(JSON.parse(doc.body).properties as Json);
      return {
        schema: { link: { resource: `${origin(request)}${path}`, verb: 'GET' }, checksum: doc.checksum },
        requirements,
        requirementsEnforced: request.query.requirementsEnforced === 'NOT_ENFORCED' ? 'NOT_ENFORCED' : 'ENFORCED',
        propertyGroups: Object.fromEntries(
          Object.entries(GROUPS).flatMap(([key, g]) => {
            const propertyNames = g.names.filter((n) => names.includes(n));
            return propertyNames.length === 0
              ? []
              : [[key, { title: g.title, description: g.description, propertyNames }]];
          }),
        ),
        locale,
        marketplaceIds: [m.id],
        productType: pt.name,
        displayName: pt.displayName,
        productTypeVersion: { version: versionOf(pt), latest: true, releaseCandidate: false },
      };
    },
  );

  // The linked document: no access token (a pre-signed link in the real API).
  app.get<{ Params: { productType: string; marketplaceId: string; requirements: string; version: string } }>(
    `${SCHEMA_PATH}/:productType/:marketplaceId/:requirements/:version`,
    { config: { api: 'selling' as const } },
    async (request, reply) => {
      const doc = documents.get(new URL(request.url, 'http://simulator').pathname);
      if (!doc)
        return reply
          .code(404)
          .send('<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>');
      return reply.type('application/json').send(doc.body);
    },
  );
}
