import { parseArgs } from 'node:util';
import { startProviderEmulator } from './server.ts';

/**
 * Runs the provider emulator on its own: `node --import tsx src/providers/emulator/main.ts --port 4010`.
 * (A `calebe provider-emulator` CLI command, as DESIGN.md names it, is left for the wiring step.)
 */
const { values } = parseArgs({
  options: { port: { type: 'string', default: '4010' }, host: { type: 'string', default: '127.0.0.1' } },
});
const emulator = await startProviderEmulator({ port: Number(values.port), host: values.host });
process.stdout.write(
  `provider emulator on ${emulator.url} (payment host ${emulator.paymentUrl}, API host ${emulator.apiUrl})\n`,
);
const stop = () => void emulator.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
