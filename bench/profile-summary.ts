/**
 * `node --import tsx bench/profile-summary.ts <file.cpuprofile> [units]`: self time by area and the top
 * functions of a whole `node --cpu-prof` profile (issue 14: the list's served gateway, the rebuild CLI).
 * `units` (requests or events) adds µs per unit.
 */
import { readFileSync } from 'node:fs';
import { type CpuProfile, printProfile, summarizeProfile } from './profile-create.ts';

const [file, units] = process.argv.slice(2);
if (!file) {
  console.error('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [units]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
printProfile(summarizeProfile(profile, 0, Number.POSITIVE_INFINITY, 30), Number(units ?? 1));
