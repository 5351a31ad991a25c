import { dataEnvelope, errorEnvelope, idParams, listEnvelope } from '../envelopes.ts';
import { routingRuleRequest } from '../examples.ts';
import { operation } from '../operation.ts';
import { createRuleBody, ruleDto, ruleListQuery, updateRuleBody } from '../rules.ts';
import { PROVIDER_ADMIN } from './providers.ts';

/** SPEC 2.7, 2.8, 4.14, 5.7: routing rules, super_admin only like providers. */
const access = { auth: 'session' as const, roles: PROVIDER_ADMIN };

export const createRoutingRule = operation({
  method: 'POST',
  path: '/admin/rules',
  access,
  schema: {
    operationId: 'createRoutingRule',
    summary: 'Create a routing rule (super_admin)',
    description:
      'tenant_id null (default) makes a global rule. priority defaults to 100 (lower wins), max_amount to 100000000, enabled to true. A missing provider or tenant is 404 not_found.',
    body: createRuleBody,
    response: { 201: dataEnvelope(ruleDto), 404: errorEnvelope },
  },
  examples: {
    request: routingRuleRequest,
  },
});

export const listRoutingRules = operation({
  method: 'GET',
  path: '/admin/rules',
  access,
  schema: {
    operationId: 'listRoutingRules',
    summary: 'List routing rules (super_admin), oldest first',
    querystring: ruleListQuery,
    response: { 200: listEnvelope(ruleDto) },
  },
});

export const updateRoutingRule = operation({
  method: 'PATCH',
  path: '/admin/rules/:id',
  access,
  schema: {
    operationId: 'updateRoutingRule',
    summary: 'Change a routing rule (super_admin): priority, max_amount, enabled',
    description: 'Applies to new charges only; existing transactions keep their provider.',
    params: idParams,
    body: updateRuleBody,
    response: { 200: dataEnvelope(ruleDto), 404: errorEnvelope },
  },
  examples: { request: { priority: 50, max_amount: 5000000 } },
});
