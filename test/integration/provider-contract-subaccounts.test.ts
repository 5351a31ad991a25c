import { emulatorSubaccountSubject, subaccountsContract } from '../support/provider-contract/subaccounts.ts';

// The `subaccounts` capability of the provider port (issue 28): one contract for every marketplace adapter;
// today Safe2Pay's `Marketplace/*` wire over the provider emulator (the simulator has no subaccounts).
subaccountsContract(emulatorSubaccountSubject());
