import type { ProviderEnvironment as Environment } from '../port.ts';
import type {
  CobRInput,
  EmulatedCobR,
  EmulatedRec,
  Invalid,
  PixAutomaticStore,
  RecBody,
  Refusal,
} from './pix-automatic-state.ts';
import type { Route, WireAnswer } from './wire.ts';

/**
 * The Pix Automatic operations both wires serve, the provider's v3 (pix-automatic.ts) and the BCB API
 * (pix-automatic-bcb.ts): create, read and revoke a recurrence, schedule and read one of its charges. Each
 * runs the store's one rule for it; a wire brings how it reads the request and how it writes the answer.
 */

/** How one wire writes the answers: its refusals (of a recurrence, `Rec`, or a charge, `CobR`) and views. */
export interface PixAutomaticDialect {
  readonly via: 'v3' | 'bcb';
  refuse(refusal: Refusal, object: 'Rec' | 'CobR'): WireAnswer;
  rec(status: number, rec: EmulatedRec): WireAnswer;
  cobr(status: number, cobr: EmulatedCobR): WireAnswer;
}

/** A charge a request asks for: of which recurrence, on what terms. */
export interface AskedCharge {
  readonly rec: EmulatedRec;
  readonly input: CobRInput;
}

/**
 * The shared routes of one request: each runs the store's rule, answered in `dialect`, for a key of
 * `environment`.
 */
export function pixAutomaticRoutes(
  store: PixAutomaticStore,
  environment: Environment,
  dialect: PixAutomaticDialect,
) {
  const notFound = (object: 'Rec' | 'CobR') => dialect.refuse({ kind: 'not_found' }, object);
  return {
    /** Creates a recurrence from the body `input` reads (on the emulator's today); a wrong one: invalid. */
    createRec(input: (today: string) => Invalid | RecBody): Route {
      return {
        chargeId: null,
        operation: 'pixauto_authorize',
        reference: null,
        run() {
          const body = input(store.today());
          if ('property' in body) return dialect.refuse({ kind: 'invalid', ...body }, 'Rec');
          return dialect.rec(201, store.createRec({ ...body, environment, via: dialect.via }));
        },
      };
    },

    /** Reads the recurrence asked for as `id` (`rec`: undefined when this key cannot see one). */
    readRec(id: string, rec: EmulatedRec | undefined): Route {
      return {
        chargeId: null,
        operation: 'pixauto_authorization_get',
        reference: id,
        reads: true,
        run: () => (rec ? dialect.rec(200, rec) : notFound('Rec')),
      };
    },

    /** The receiver revokes the recurrence; `refused`: what the wire refuses in the request itself, if anything. */
    revoke(id: string, rec: EmulatedRec | undefined, refused: Refusal | null = null): Route {
      return {
        chargeId: null,
        operation: 'pixauto_revoke',
        reference: id,
        run() {
          if (!rec) return notFound('Rec');
          if (refused) return dialect.refuse(refused, 'Rec');
          const done = store.revoke(rec);
          return 'kind' in done ? dialect.refuse(done, 'Rec') : dialect.rec(200, done);
        },
      };
    },

    /** Schedules a charge of the recurrence and on the terms `asked` reads from the request, or refuses it. */
    schedule(reference: string, asked: () => Refusal | AskedCharge): Route {
      return {
        chargeId: null,
        operation: 'pixauto_schedule',
        reference,
        run() {
          const charge = asked();
          if ('kind' in charge) return dialect.refuse(charge, 'CobR');
          const made = store.schedule(charge.rec, charge.input);
          return 'kind' in made ? dialect.refuse(made, 'CobR') : dialect.cobr(201, made);
        },
      };
    },

    /** Reads a charge (`cobr`: undefined when this request cannot see it). */
    readCobR(reference: string, cobr: EmulatedCobR | undefined): Route {
      return {
        chargeId: null,
        operation: 'pixauto_schedule_get',
        reference,
        reads: true,
        run: () => (cobr ? dialect.cobr(200, cobr) : notFound('CobR')),
      };
    },
  };
}
