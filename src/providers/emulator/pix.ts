import { randomUUID } from 'node:crypto';
import { generatePixPayload } from '@brazilian-utils/brazilian-utils';

/**
 * A dynamic Pix BR Code ("copia e cola") as a PSP issues it: EMV TLV with the `br.gov.bcb.pix` GUI, the
 * location URL in sub-field 25, point of initiation 12 and the CRC16-CCITT of the whole payload. Built by
 * `@brazilian-utils/brazilian-utils` (zero dependencies, follows the BCB Manual do BR Code) rather than by
 * hand, so the emulator does not carry its own CRC code.
 */
export function dynamicPixPayload(): { key: string; location: string } {
  const location = `pix.emulador.test/qr/v2/${randomUUID().replaceAll('-', '')}`;
  const key = generatePixPayload({
    url: location,
    merchantName: 'SAFE2PAY EMULADOR',
    merchantCity: 'PORTO ALEGRE',
  });
  if (!key) throw new Error('BR Code generation failed');
  return { key, location };
}
