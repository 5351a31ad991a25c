/**
 * `npm run bench -- profile-card` (issue 25, "Performance"): the create-card load (POST /v1/credit-card, an
 * approved test card, a fresh key per request) against a `calebe serve` child under `node --cpu-prof`,
 * summarized like profile-create, so its areas can be read beside a profile-create of the same hour.
 */
import { cardBody, cardEnv } from './create-card.ts';
import { type HttpBenchOptions, pixHeaders } from './create-pix.ts';
import { type ProfileSummary, profileHttpLoad } from './profile-create.ts';
import type { BenchOptions } from './support.ts';

export function benchProfileCard(opts: BenchOptions, http: HttpBenchOptions): Promise<ProfileSummary> {
  let seq = 0;
  return profileHttpLoad(
    'profile-card: POST /v1/credit-card under --cpu-prof',
    opts,
    http,
    async (gateway) => ({
      path: '/v1/credit-card',
      body: cardBody(),
      headers: pixHeaders(gateway),
      perRequestHeaders: () => ({ 'idempotency-key': `prof-card-${process.pid}-${seq++}` }),
    }),
    cardEnv(),
  );
}
