import { emulatorSubject, simulatorSubject } from '../support/provider-contract/harness.ts';
import { payoutsContract } from '../support/provider-contract/payouts.ts';

// The `payouts` capability of the provider port (issues 22 item 4.2 and 24 item 5), one contract for both
// adapters: the simulator (test keys and simulator records) and Safe2Pay over the provider emulator.
payoutsContract(simulatorSubject());
payoutsContract(emulatorSubject());
