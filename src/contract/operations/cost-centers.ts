import {
  costCenterListQuery,
  costCenterView,
  createCostCenterBody,
  updateCostCenterBody,
} from '../cost-centers.ts';
import { dataEnvelope, errorEnvelope, idParams, listEnvelope } from '../envelopes.ts';
import { operation } from '../operation.ts';

/** Public cost centers (SPEC 4.12, 5.3, 5.4; docs/decisions.md "Charges"). */
const COST_CENTERS_ROUTE = '/v1/cost-centers';

export const listCostCenters = operation({
  method: 'GET',
  path: COST_CENTERS_ROUTE,
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'listCostCenters',
    summary: "List cost centers of the key's tenant (and, on request, its descendants)",
    description:
      "Oldest first. `tenant_id` selects the filter root within the key's tree (outside: 404); `include_descendants=true` adds its subtree. Test and production keys see the same centers.",
    querystring: costCenterListQuery,
    response: { 200: listEnvelope(costCenterView), 404: errorEnvelope },
  },
});

export const getCostCenter = operation({
  method: 'GET',
  path: `${COST_CENTERS_ROUTE}/:id`,
  access: { auth: 'api_key', scopes: ['transactions:read'] },
  schema: {
    operationId: 'getCostCenter',
    summary: "A cost center of the key's tenant or of a descendant",
    params: idParams,
    response: { 200: dataEnvelope(costCenterView), 404: errorEnvelope },
  },
});

export const createCostCenter = operation({
  method: 'POST',
  path: COST_CENTERS_ROUTE,
  access: {
    auth: 'api_key',
    scopes: ['cost_centers:write'],
    notForDeveloperKeys: true,
    idempotencyKey: 'optional',
  },
  schema: {
    operationId: 'createCostCenter',
    summary: "Create a cost center for the key's tenant",
    description:
      'Idempotency-Key optional here; when sent, malformed is 400 idempotency_key_required and the scope is tenant + key (a center is the same in test and production). A replay with the same key and body answers 200 with `Idempotency-Replayed: true` and the same center; another body is 409 idempotency_conflict. Developer keys are refused (403 insufficient_scope).',
    body: createCostCenterBody,
    response: {
      200: dataEnvelope(costCenterView).meta({ description: 'Replay: the center this key created' }),
      201: dataEnvelope(costCenterView).meta({ description: 'Created' }),
      409: errorEnvelope,
    },
  },
  examples: { request: { name: 'Loja Pinheiros' } },
});

export const updateCostCenter = operation({
  method: 'PATCH',
  path: `${COST_CENTERS_ROUTE}/:id`,
  access: { auth: 'api_key', scopes: ['cost_centers:write'], notForDeveloperKeys: true },
  schema: {
    operationId: 'updateCostCenter',
    summary: "Rename, deactivate or reactivate a cost center of the key's own tenant",
    description:
      "A descendant's center is 403 forbidden (writes only the own tenant); outside the key's tree, 404. Repeating a change is a no-op. Deactivation keeps existing classifications.",
    params: idParams,
    body: updateCostCenterBody,
    response: { 200: dataEnvelope(costCenterView), 404: errorEnvelope },
  },
  examples: { request: { name: 'Loja Pinheiros (reformada)', active: true } },
});
