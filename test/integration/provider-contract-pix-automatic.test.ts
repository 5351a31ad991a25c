import {
  emulatorPixSubject,
  pixAutomaticContract,
  simulatorPixSubject,
} from '../support/provider-contract/pix-automatic.ts';

// The `pixAutomatic` capability of the provider port (issue 27), one contract for both adapters: the
// simulator (test keys: nothing sent, paid on the due date) and Safe2Pay's v3 wire over the provider emulator.
pixAutomaticContract(simulatorPixSubject());
pixAutomaticContract(emulatorPixSubject());
