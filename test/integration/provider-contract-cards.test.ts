import { cardsContract } from '../support/provider-contract/cards.ts';
import { emulatorSubject, simulatorSubject } from '../support/provider-contract/harness.ts';

// The `cards` capability of the provider port (issue 25), one contract for both adapters: the simulator
// (test keys' documented test cards) and Safe2Pay over the provider emulator (its last-digit sandbox cards).
cardsContract(simulatorSubject());
cardsContract(emulatorSubject());
