import { ApiError } from '../../aggregates/errors.ts';
import type { Config } from '../../config.ts';
import { checkDestinationSyntax, destinationPolicy } from '../../webhooks/ssrf-guard.ts';

/** The destination policy (src/webhooks/ssrf-guard.ts), without DNS: 422 validation_error on `url`. */
export function checkEndpointUrl(config: Pick<Config, 'WEBHOOK_ALLOWED_PRIVATE_HOSTS'>, value: string): void {
  const check = checkDestinationSyntax(value, destinationPolicy(config));
  if (!check.ok) throw new ApiError('validation_error', `Invalid url: ${check.reason}.`, { param: 'url' });
}
