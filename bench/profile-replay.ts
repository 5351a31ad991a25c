/**
 * `npm run bench -- profile-replay` (issue 14): the B2 load (one Pix, then its key and body replayed) against
 * a `calebe serve` child under `node --cpu-prof`, summarized like profile-create: only the samples of the
 * measured replay run count (no creation, no GET, no start-up).
 */
import { randomBytes } from 'node:crypto';
import { type HttpBenchOptions, PIX_BODY, pixHeaders } from './create-pix.ts';
import { type ProfileSummary, profileHttpLoad } from './profile-create.ts';
import type { BenchOptions } from './support.ts';

export function benchProfileReplay(opts: BenchOptions, http: HttpBenchOptions): Promise<ProfileSummary> {
  return profileHttpLoad(
    'profile-replay: POST /v1/pix replayed under --cpu-prof',
    opts,
    http,
    async (gateway) => {
      const headers = { ...pixHeaders(gateway), 'idempotency-key': `prof-${randomBytes(8).toString('hex')}` };
      const first = await fetch(`${gateway.url}/v1/pix`, { method: 'POST', headers, body: PIX_BODY });
      await first.arrayBuffer();
      if (first.status !== 201) throw new Error(`creating the Pix failed: ${first.status}`);
      return { headers };
    },
  );
}
