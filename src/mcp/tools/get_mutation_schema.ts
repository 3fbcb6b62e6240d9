import { z } from 'zod';
import {
  ACTIONS,
  allowedActions,
  DERIVED_FIELDS,
  payloadJsonSchema,
  TARGET_TYPES,
} from '../../domain/mutation/payloads.js';
import { DomainError } from '../../domain/shared/errors.js';
import { readTool } from '../tool.js';

// Spec 4.8, 4.12: the JSON Schema of the payload a (target type, action) takes, derived from the
// same zod schema that validates admissions, so the two can't drift apart.
export const getMutationSchema = readTool('get_mutation_schema', 'Get mutation payload schema', {
  description:
    'Returns the JSON Schema of the `payload` for a mutation target type and action: Listing update (productType and non-empty native patches), Sponsored Products updates and creations with the keys the entities carry in `data` (money in major units of the profile currency), archive (an empty object). Ids of the target and its parents, adProduct and marketplaceScope are derived from the target: optional, and must match when given.',
  input: {
    target_type: z.enum(TARGET_TYPES),
    action: z.enum(ACTIONS),
  },
  output: z.object({
    target_type: z.enum(TARGET_TYPES),
    action: z.enum(ACTIONS),
    money: z.string().describe("the payload's money units"),
    derived: z
      .array(z.string())
      .describe('payload keys derived from the target (ids, adProduct, marketplaceScope): optional, must match'),
    schema: z.record(z.string(), z.unknown()).describe('the JSON Schema of the payload'),
  }),
  async handler({ target_type, action }) {
    const json = payloadJsonSchema(target_type, action);
    if (!json) {
      const allowed = allowedActions(target_type);
      const takes = allowed.length
        ? `a ${target_type} target takes ${allowed.join(', ')}`
        : `a ${target_type} target takes none of these actions (it names a connection for catalog operations)`;
      throw new DomainError('invalid', `action: ${action} does not apply to a ${target_type} target; ${takes}`, {
        argument: 'action',
        allowed_actions: allowed,
      });
    }
    const derived = DERIVED_FIELDS.filter((f) => f in (json.properties ?? {}));
    const money =
      target_type === 'Listing'
        ? "as the product type definition's values (for example purchasable_offer amounts in major units with their currency)"
        : 'major units of the profile currency';
    return { target_type, action, money, derived, schema: json };
  },
});
