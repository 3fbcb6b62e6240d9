// The part of oidc-provider 9 this service uses (the package ships no types).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface AdapterPayload {
    [key: string]: unknown;
    grantId?: string;
    userCode?: string;
    uid?: string;
    consumed?: number;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface ClientMetadata {
    client_id: string;
    client_name?: string;
    redirect_uris?: string[];
    [key: string]: unknown;
  }

  export interface Client {
    clientId: string;
    clientName?: string;
    redirectUris: string[];
    metadata(): ClientMetadata;
  }

  export interface AccessToken {
    jti: string;
    accountId: string;
    clientId: string;
    grantId: string;
    scope?: string;
    aud?: string | string[];
    isExpired: boolean;
    save(): Promise<string>;
  }

  export interface Grant {
    jti: string;
    addResourceScope(resource: string, scope: string): void;
    rejectResourceScope(resource: string, scope: string): void;
    addOIDCScope(scope: string): void;
    rejectOIDCScope(scope: string): void;
    getResourceScopeEncountered(resource: string): string;
    save(): Promise<string>;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, string | undefined>;
    session?: { accountId: string };
    grantId?: string;
    returnTo: string;
  }

  export interface InteractionResults {
    login?: { accountId: string };
    consent?: { grantId: string };
    error?: string;
    error_description?: string;
    [key: string]: unknown;
  }

  export interface KoaContextWithOIDC {
    oidc: { params?: Record<string, unknown>; client?: Client };
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    issuer: string;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    Client: { find(id: string): Promise<Client | undefined> };
    AccessToken: {
      new (properties: Record<string, unknown>): AccessToken;
      find(token: string): Promise<AccessToken | undefined>;
    };
    Grant: {
      new (properties: { accountId: string; clientId: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
  }

  export const errors: {
    InvalidTarget: new (description?: string) => Error;
    AccessDenied: new (description?: string) => Error;
  };

  export default Provider;
}
