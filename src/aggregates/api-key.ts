import { z } from 'zod';
import { livemodeOfKey } from '../crypto/secrets.ts';
import { defineEvent, type EventOf } from '../events/event-registry.ts';
import { SCOPES, type Scope } from './access.ts';
import { type Decider, DomainError } from './decider.ts';
import { isValidRegistryName } from './registry-name.ts';
import type { TransitionTable } from './transition-table.ts';

/**
 * An API key (SPEC 2.7, 5; stream `api_key-<id>`). Only the SHA-256 of the secret is ever stored: the secret
 * exists once, in the answer to the issuing command. A revoked key is final.
 */

const keyId = z.string().startsWith('key_');

const issuedData = z.strictObject({
  key_id: keyId,
  tenant_id: z.string().startsWith('ten_'),
  livemode: z.boolean(),
  name: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  access_profile: z.enum(['standard', 'developer']),
  secret_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The first characters of the secret, so a person can recognize the key in a listing. */
  prefix: z.string(),
  /** `user:<id>` | `system:<job>`: who asked for the key. */
  created_by: z.string().min(1),
});
export type ApiKeyIssuedData = z.infer<typeof issuedData>;
const revokedData = z.strictObject({ key_id: keyId });

export type ApiKeyStatus = 'issued' | 'revoked';

export type ApiKeyState =
  | { readonly status: 'none' }
  | ({ readonly status: ApiKeyStatus } & ApiKeyIssuedData);

export const apiKeyEvents = [
  defineEvent({
    type: 'ApiKey.Issued',
    audit: { action: 'api_key.created', when: 'an API key was issued (the secret never)' },
    schema: issuedData,
  }),
  defineEvent({
    type: 'ApiKey.Revoked',
    audit: { action: 'api_key.revoked', when: 'an API key was revoked' },
    schema: revokedData,
  }),
];

export type ApiKeyEvent = EventOf<(typeof apiKeyEvents)[number]>;

export type ApiKeyCommand = IssueApiKey | { readonly kind: 'revoke' };
export interface IssueApiKey {
  readonly kind: 'issue';
  readonly keyId: string;
  readonly tenantId: string;
  /** Whether `tenant-<tenantId>` exists, as the command layer found it (tenants are never deleted). */
  readonly tenantExists: boolean;
  readonly livemode: boolean;
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly accessProfile: 'standard' | 'developer';
  readonly secretSha256: string;
  readonly prefix: string;
  readonly createdBy: string;
}

/**
 * State table (SPEC 5, 7 `401 unauthorized` for a revoked key): issued -> revoked, and nothing after.
 *
 *   state    | issue                                  | revoke
 *   ---------+----------------------------------------+------------------------------
 *   none     | ApiKey.Issued -> issued (*)            | 404 not_found
 *   issued   | same facts: no-op; else 409 conflict   | ApiKey.Revoked -> revoked
 *   revoked  | 409 conflict                           | no-op (revoking is idempotent)
 *
 * (*) refused when the tenant does not exist (404 not_found), or the name, scopes or prefix are invalid
 * (422 validation_error).
 */
export const apiKeyTransitions: TransitionTable<ApiKeyStatus, ApiKeyCommand['kind'], ApiKeyEvent['type']> = {
  none: { issue: { emits: 'ApiKey.Issued', to: 'issued' }, revoke: { refuse: 'not_found' } },
  issued: { issue: { repeat: 'same_facts_or_conflict' }, revoke: { emits: 'ApiKey.Revoked', to: 'revoked' } },
  revoked: { issue: { refuse: 'conflict' }, revoke: { noop: true } },
};

function issuedFacts(command: IssueApiKey): ApiKeyIssuedData {
  return {
    key_id: command.keyId,
    tenant_id: command.tenantId,
    livemode: command.livemode,
    name: command.name,
    scopes: [...command.scopes],
    access_profile: command.accessProfile,
    secret_sha256: command.secretSha256,
    prefix: command.prefix,
    created_by: command.createdBy,
  };
}

function invalid(param: string, message: string): DomainError {
  return new DomainError('validation_error', message, { param });
}

function issue(command: IssueApiKey): readonly ApiKeyEvent[] | DomainError {
  if (!command.tenantExists) return new DomainError('not_found', 'The tenant does not exist.');
  if (!isValidRegistryName(command.name)) return invalid('name', 'The name must have 2 to 120 bytes.');
  const known = new Set<string>(SCOPES);
  if (command.scopes.length === 0 || command.scopes.some((s) => !known.has(s))) {
    return invalid('scopes', `Scopes must be a non-empty list of: ${SCOPES.join(', ')}.`);
  }
  if (new Set(command.scopes).size !== command.scopes.length) {
    return invalid('scopes', 'Scopes must not repeat.');
  }
  // SPEC 5.2: the prefix states the mode; a key whose prefix claims the other mode must never exist.
  if (livemodeOfKey(command.prefix) !== command.livemode) {
    return invalid('livemode', "The key's prefix does not match its mode.");
  }
  return [{ type: 'ApiKey.Issued', data: issuedFacts(command) }];
}

export const apiKey: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyState> = {
  initialState: { status: 'none' },

  evolve(state, event) {
    switch (event.type) {
      case 'ApiKey.Issued':
        return { status: 'issued', ...event.data };
      case 'ApiKey.Revoked':
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
    }
  },

  decide(command, state) {
    const move = apiKeyTransitions[state.status][command.kind];
    if ('refuse' in move) {
      return new DomainError(
        move.refuse,
        state.status === 'revoked' ? 'The API key is revoked.' : 'The API key does not exist.',
      );
    }
    if ('noop' in move) return [];
    if ('repeat' in move) {
      const same =
        state.status !== 'none' && command.kind === 'issue' && sameFacts(state, issuedFacts(command));
      return same ? [] : new DomainError('conflict', 'This API key already exists with other values.');
    }
    if (command.kind === 'issue') return issue(command);
    if (state.status === 'none') throw new Error('api key state table: revoke cannot emit from none');
    return [{ type: 'ApiKey.Revoked', data: { key_id: state.key_id } }];
  },
};

function sameFacts(a: ApiKeyIssuedData, b: ApiKeyIssuedData): boolean {
  return (Object.keys(b) as (keyof ApiKeyIssuedData)[]).every((k) =>
    k === 'scopes' ? a.scopes.join(' ') === b.scopes.join(' ') : a[k] === b[k],
  );
}
