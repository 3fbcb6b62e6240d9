import { z } from 'zod';
import type { EventUnion } from '../shared/decider.js';
import { SCOPES } from './scopes.js';

export const UserRegistered = z.object({ user_id: z.uuid(), name: z.string().min(1) });
export const ApiTokenIssued = z.object({
  user_id: z.uuid(),
  token_id: z.uuid(),
  /** sha256 hex of the token; the token itself is shown once and never stored */
  token_hash: z.string().regex(/^[0-9a-f]{64}$/),
  label: z.string(),
  /** what the token may do; absent on tokens issued before scopes existed, which hold every scope */
  scopes: z.array(z.enum(SCOPES)).min(1).optional(),
});
export const ApiTokenRevoked = z.object({ user_id: z.uuid(), token_id: z.uuid() });
/** The account was deleted: the user is closed for good. Its personal data lives elsewhere and is erased. */
export const UserDeleted = z.object({ user_id: z.uuid() });
/** The user may switch the operator's pauses on the console (granted and revoked with the CLI); `by`: who did. */
export const OperatorRoleGranted = z.object({ user_id: z.uuid(), by: z.string().min(1) });
export const OperatorRoleRevoked = z.object({ user_id: z.uuid(), by: z.string().min(1) });

export const userEventSchemas = {
  UserRegistered,
  ApiTokenIssued,
  ApiTokenRevoked,
  UserDeleted,
  OperatorRoleGranted,
  OperatorRoleRevoked,
} as const;
export type UserEvent = EventUnion<typeof userEventSchemas>;
