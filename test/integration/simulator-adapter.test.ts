import { createSimulatorAdapter, type SimulatorAdapter } from '../../src/providers/simulator.ts';
import { type ContractHarness, providerContract } from './provider-contract.ts';

// The simulator adapter of the one provider port (issue 13 item 1, SPEC 1 simulator row) under the same
// contract as the Safe2Pay adapter over the emulator (test/integration/safe2pay-adapter.test.ts).
const adapter: SimulatorAdapter = createSimulatorAdapter();

const harness: ContractHarness = {
  adapter,
  context: (signal) => ({
    environment: 'sandbox',
    credentials: {},
    signal: signal ?? AbortSignal.timeout(60_000),
  }),
  settle: async (providerReference, via) => {
    if (!adapter.settle(providerReference, via)) throw new Error(`no open charge ${providerReference}`);
  },
};

providerContract('simulator', { simulated: true, harness: () => harness });
