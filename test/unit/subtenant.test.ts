import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { SCOPES, type Scope } from '../../src/aggregates/access.ts';
import { DomainError } from '../../src/aggregates/decider.ts';
import {
  decideSubtenantKey,
  decideSubtenantRegistration,
  type SubtenantCaller,
  type SubtenantKeyTarget,
} from '../../src/aggregates/subtenant.ts';

/** SPEC 4.13, 5.2-5.5: the pure rules of the public subtenant endpoints. */

const caller = (over: Partial<SubtenantCaller> = {}): SubtenantCaller => ({
  tenantId: 'ten_house',
  livemode: true,
  scopes: new Set<Scope>(SCOPES),
  ...over,
});
const child: SubtenantKeyTarget = {
  tenantId: 'ten_child',
  ancestorIds: ['ten_root', 'ten_house', 'ten_child'],
  blocked: false,
};

function code(result: unknown): string | undefined {
  return result instanceof DomainError ? result.code : undefined;
}

describe('decideSubtenantRegistration (SPEC 4.13 production key only)', () => {
  test('given a live key, when it registers, then nothing refuses it', () => {
    assert.equal(decideSubtenantRegistration({ livemode: true }), null);
  });
  test('given a test key, when it registers, then 403 forbidden', () => {
    assert.equal(code(decideSubtenantRegistration({ livemode: false })), 'forbidden');
  });
});

describe('decideSubtenantKey (SPEC 4.13, 5.3, 5.5)', () => {
  test('given a child and owned scopes, when a key is asked, then it gets the caller mode and the standard profile', () => {
    assert.deepEqual(decideSubtenantKey(caller(), child, ['pix:write']), {
      livemode: true,
      accessProfile: 'standard',
    });
    assert.deepEqual(decideSubtenantKey(caller({ livemode: false }), child, ['pix:write']), {
      livemode: false,
      accessProfile: 'standard',
    });
  });

  test("given the caller's own tenant, then 403 forbidden (a key never creates a key for its own tenant)", () => {
    const own = { tenantId: 'ten_house', ancestorIds: ['ten_root', 'ten_house'], blocked: false };
    assert.equal(code(decideSubtenantKey(caller(), own, ['pix:write'])), 'forbidden');
  });

  test('given an ancestor, a tenant of another tree or a missing one, then 404 not_found', () => {
    const targets: SubtenantKeyTarget[] = [
      { tenantId: 'ten_root', ancestorIds: ['ten_root'], blocked: false },
      { tenantId: 'ten_other', ancestorIds: ['ten_x', 'ten_other'], blocked: false },
      { tenantId: 'ten_missing', ancestorIds: [], blocked: false },
    ];
    for (const t of targets) assert.equal(code(decideSubtenantKey(caller(), t, ['pix:write'])), 'not_found');
  });

  test('given a grandchild, then it is allowed (any descendant)', () => {
    const grandchild = {
      tenantId: 'ten_gc',
      ancestorIds: ['ten_root', 'ten_house', 'ten_child', 'ten_gc'],
      blocked: false,
    };
    assert.ok(!(decideSubtenantKey(caller(), grandchild, ['pix:write']) instanceof DomainError));
  });

  test('given a scope the caller lacks, then 403 insufficient_scope naming it', () => {
    const narrow = caller({ scopes: new Set<Scope>(['subtenants:keys:write', 'pix:write']) });
    const r = decideSubtenantKey(narrow, child, ['pix:write', 'boleto:write']);
    assert.equal(code(r), 'insufficient_scope');
    assert.match((r as DomainError).message, /boleto:write/);
  });

  test('given a suspended subtenant or ancestor, then 403 tenant_suspended', () => {
    assert.equal(
      code(decideSubtenantKey(caller(), { ...child, blocked: true }, ['pix:write'])),
      'tenant_suspended',
    );
  });

  test('property: a key is granted exactly when the requested scopes are a subset of the caller scopes', () => {
    const scopeSet = fc.subarray([...SCOPES]);
    fc.assert(
      fc.property(scopeSet, scopeSet, fc.boolean(), (owned, requested, livemode) => {
        const r = decideSubtenantKey(caller({ scopes: new Set(owned), livemode }), child, requested);
        const subset = requested.every((s) => owned.includes(s));
        if (subset) assert.deepEqual(r, { livemode, accessProfile: 'standard' });
        else assert.equal(code(r), 'insufficient_scope');
      }),
    );
  });

  test('property: outside the strict subtree the answer is forbidden (own) or not_found, whatever else holds', () => {
    const id = fc.constantFrom('ten_a', 'ten_b', 'ten_c', 'ten_house');
    fc.assert(
      fc.property(fc.array(id, { maxLength: 4 }), id, fc.boolean(), (path, tenantId, blocked) => {
        const ancestorIds = [...path, tenantId];
        const r = decideSubtenantKey(caller(), { tenantId, ancestorIds, blocked }, ['pix:write']);
        if (tenantId === 'ten_house') assert.equal(code(r), 'forbidden');
        else if (!path.includes('ten_house')) assert.equal(code(r), 'not_found');
        else assert.equal(code(r), blocked ? 'tenant_suspended' : undefined);
      }),
    );
  });
});
