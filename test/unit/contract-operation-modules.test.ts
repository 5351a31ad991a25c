import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { FEATURES } from '../../src/commands/index.ts';
import { OPERATION_MODULES } from '../../src/contract/operations/index.ts';

/**
 * Issue 24 item 1: the SDK reads its operations from the contract modules (sdk/src/operations.ts), the
 * server mounts them through FEATURES. The two lists name the same operations, module by feature, in order.
 */
describe('contract operation modules (issue 24 item 1)', () => {
  test('module i exports exactly the operations feature i mounts', () => {
    assert.equal(OPERATION_MODULES.length, FEATURES.length);
    FEATURES.forEach((feature, i) => {
      const exported = Object.values(OPERATION_MODULES[i] as object).filter(
        (v) => typeof v === 'object' && v !== null && 'schema' in v,
      );
      const mounted = feature.routes.map((r) => r.operation);
      assert.equal(new Set(exported).size, exported.length, feature.name);
      assert.deepEqual(new Set(exported), new Set(mounted), feature.name);
    });
  });
});
