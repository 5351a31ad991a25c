import { dataEnvelope, errorResponses, listEnvelope } from '../envelopes.ts';
import { EXAMPLE_DUE_DATE, TENANT } from '../examples.ts';
import { createFeeVersionBody, feeVersionDto, feeVersionListQuery } from '../fee-schedules.ts';
import { operation } from '../operation.ts';

/**
 * Issue 28 item 4: fee schedules. Writing is super_admin only (SPEC 5.7 "Providers and rules" spirit);
 * tenant_admin and viewer read their own tree's versions (docs/decisions.md "Fees and split").
 */
export const createFeeVersion = operation({
  method: 'POST',
  path: '/admin/fee-schedules',
  access: { auth: 'session', roles: ['super_admin'] },
  schema: {
    operationId: 'createFeeVersion',
    summary: "Add a version to a tenant's fee schedule (super_admin)",
    description:
      'The version applies to charges issued from `starts_on` on (Brasilia date). 201 new; 200 when the same version already exists. A missing tenant is 404 not_found.',
    body: createFeeVersionBody,
    response: {
      201: dataEnvelope(feeVersionDto),
      200: dataEnvelope(feeVersionDto),
      ...errorResponses(404, 409),
    },
  },
  examples: {
    request: {
      tenant_id: TENANT,
      method: 'pix',
      percent_bps: 199,
      fixed_amount: 30,
      starts_on: EXAMPLE_DUE_DATE,
    },
  },
});

export const listFeeVersions = operation({
  method: 'GET',
  path: '/admin/fee-schedules',
  access: { auth: 'session', roles: ['super_admin', 'tenant_admin', 'viewer'] },
  schema: {
    operationId: 'listFeeVersions',
    summary: 'List fee versions, by tenant, method and start date',
    description:
      "super_admin sees every tenant's; tenant_admin and viewer their own tenant's and descendants'.",
    querystring: feeVersionListQuery,
    response: { 200: listEnvelope(feeVersionDto) },
  },
});
