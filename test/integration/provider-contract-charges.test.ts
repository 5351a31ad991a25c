import { chargesContract } from '../support/provider-contract/charges.ts';
import { emulatorSubject, simulatorSubject } from '../support/provider-contract/harness.ts';

// The `charges` capability of the provider port (issue 24 item 5), one contract for both adapters: the
// simulator (SPEC 1 simulator row) and Safe2Pay over the provider emulator.
chargesContract(simulatorSubject());
chargesContract(emulatorSubject());
