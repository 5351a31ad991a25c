// The pix-automatic feature's operations (src/commands/pix-automatic/feature.ts), in its routes' order.
export { createPixAutomaticCharge } from '../pix-automatic-charges.ts';
