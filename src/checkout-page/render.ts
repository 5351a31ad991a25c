import type { CheckoutMethod, CheckoutStatus } from '../aggregates/checkout.ts';
import {
  type ChargePageView,
  COPY_SCRIPT,
  escapeHtml,
  formatBRL,
  formatDate,
  formatInstant,
  payerPageCsp,
  payerPageHtml,
  pixQrSvg,
  SIMULATED_BANNER,
  TEST_BANNER,
} from '../charge-page/render.ts';
import { BRAZILIAN_STATES } from '../contract/charges.ts';

/**
 * The hosted checkout page (issue 25; SPEC 2.7, 4.9; docs/decisions.md "Hosted checkout (issue 25)"),
 * server-rendered in Portuguese, mobile first. Works without JavaScript: each offered method is a form posted
 * to the gateway (POST, never data in the URL), answered by a redirect back here. One inline script, allowed
 * by its hash, copies codes and polls the page's small status route (same origin) to reload when the state
 * changes. What is payable follows the charge page's rules (src/charge-page/render.ts): a simulated charge
 * shows "SIMULADO — não pagável" and nothing scannable; a Pix QR only for a real production charge.
 */

export interface CheckoutPageView {
  id: string;
  merchantName: string | null;
  status: CheckoutStatus;
  /** Whether the payer may still pick a method (open or processing, before the deadline). */
  acceptsPayments: boolean;
  /** The methods the payer may still pick (`offeredMethods`: a card past the carding cap is left out). */
  methods: readonly CheckoutMethod[];
  amount: number;
  reference: string;
  description: string;
  livemode: boolean;
  expiresAt: string;
  /** The checkout has no customer: each form asks the payer's data (SPEC 4.1, 4.2). */
  asksPayer: boolean;
  /** The latest charge the payer made, as the charge page shows it. */
  charge: (ChargePageView & { document_url: string }) | null;
  /** The latest charge ended unpaid (refused, declined or expired) and the payer may pick again. */
  lastAttemptFailed: boolean;
  /** The path this page is at (signed); the forms post to `<path>/pay`, the script polls `<path>/status`. */
  path: string;
  /** The state the status route compares with (a change reloads the page). */
  stateToken: string;
  /** One fresh nonce per form. */
  nonces: Readonly<Record<CheckoutMethod, string>>;
  /** A refusal of the last post, for the payer (Portuguese), with the field it names. */
  error?: { message: string; method: CheckoutMethod; field?: string | undefined } | undefined;
  /** What the payer typed in the form that was refused (never card data). */
  values?: Readonly<Record<string, string>> | undefined;
}

export const CHECKOUT_STATUS_LABEL: Record<CheckoutStatus, string> = {
  open: 'Aguardando pagamento',
  processing: 'Aguardando pagamento',
  completed: 'Pago',
  expired: 'Link expirado',
  failed: 'Pagamento não concluído',
};

const STATUS_CLASS: Record<CheckoutStatus, string> = {
  open: 'pending',
  processing: 'pending',
  completed: 'paid',
  expired: 'expired',
  failed: 'failed',
};

const METHOD_NAME: Record<CheckoutMethod, string> = {
  pix: 'Pix',
  boleto: 'Boleto',
  credit_card: 'Cartão de crédito',
};
const METHOD_BUTTON: Record<CheckoutMethod, string> = {
  pix: 'Pagar com Pix',
  boleto: 'Gerar boleto',
  credit_card: 'Pagar com cartão',
};

export const FINAL_NOTE: Partial<Record<CheckoutStatus, string>> = {
  completed: 'Pagamento confirmado. Nada mais a pagar.',
  expired: 'O prazo deste link de pagamento terminou. Não pague; peça um novo link a quem o enviou.',
  failed:
    'O pagamento não foi concluído e o prazo deste link terminou. Não há nada a pagar; peça um novo link a quem o enviou.',
};

/**
 * The page's only script: copy buttons, and a poll of the status route every 3 s (then every 10 s after a
 * minute) that opens the page again (a GET, also after a form post) when the state changes; it stops on a
 * final state.
 */
const SCRIPT =
  COPY_SCRIPT +
  "(function(){var m=document.querySelector('main[data-status]');if(!m)return;var u=m.getAttribute('data-status')," +
  "s=m.getAttribute('data-state'),n=0;function t(){fetch(u,{cache:'no-store'}).then(function(r){return r.json()})" +
  ".then(function(j){if(j.state!==s){location.replace(m.getAttribute('data-page'));return}if(!j.final)setTimeout(t,n++<20?3000:10000)})" +
  '.catch(function(){setTimeout(t,10000)})}setTimeout(t,3000)})();';

/** The page's Content-Security-Policy: nothing from anywhere else; forms and the poll go to the gateway only. */
export const CHECKOUT_PAGE_CSP = payerPageCsp(SCRIPT, [
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
]);

const CSS = `
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;background:#f3f4f6;color:#111827;line-height:1.45}
main{max-width:34rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12);margin-bottom:1rem}
h1{font-size:1.1rem;margin:0 0 .25rem;color:#374151}
h2{font-size:1.05rem;margin:1rem 0 .5rem}
h3{font-size:1rem;margin:1rem 0 .25rem}
.amount{font-size:2.25rem;font-weight:700;margin:.25rem 0}
.status{display:inline-block;padding:.2rem .65rem;border-radius:999px;font-weight:600;font-size:.95rem}
.status-pending{background:#fef3c7;color:#92400e}.status-paid{background:#d1fae5;color:#065f46}
.status-expired,.status-failed{background:#fee2e2;color:#991b1b}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem .75rem;margin:1rem 0}dt{color:#4b5563}dd{margin:0;overflow-wrap:anywhere}
.banner{background:#b91c1c;color:#fff;font-weight:800;font-size:1.35rem;text-align:center;padding:.9rem;border-radius:12px;margin-bottom:1rem;letter-spacing:.02em}
.banner.test{background:#92400e}
.note{background:#f9fafb;border-left:4px solid #6b7280;padding:.6rem .8rem;margin:1rem 0}
.alert{background:#fef2f2;border-left:4px solid #b91c1c;color:#7f1d1d;padding:.6rem .8rem;margin:1rem 0}
.success{background:#ecfdf5;border-left:4px solid #047857;color:#064e3b;padding:.6rem .8rem;margin:1rem 0;font-weight:600}
.qr{width:16rem;max-width:100%;margin:.5rem auto;background:#fff}.qr svg{display:block;width:100%;height:auto}
label{display:block;font-weight:600;margin-top:.75rem}
input,select,textarea{width:100%;font-size:1rem;padding:.55rem;border:1px solid #6b7280;border-radius:8px;background:#fff;color:#111827}
textarea{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem;resize:none}
fieldset{border:1px solid #d1d5db;border-radius:8px;margin:.75rem 0;padding:.5rem .75rem .75rem}
legend{font-weight:700;padding:0 .25rem}
.row{display:grid;grid-template-columns:1fr 1fr;gap:0 .75rem}
button,.button{display:inline-block;margin-top:.75rem;padding:.7rem 1.1rem;border:0;border-radius:8px;background:#1d4ed8;color:#fff;font-size:1rem;font-weight:600;text-decoration:none;cursor:pointer;min-height:44px}
button:focus-visible,.button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
form button[type=submit]{width:100%}
details summary{cursor:pointer;font-weight:600;color:#1d4ed8;padding:.5rem 0}
.muted{color:#4b5563;font-size:.9rem}
footer{color:#4b5563;font-size:.8rem;text-align:center;margin-top:1rem}
@media (min-width:48rem){main{max-width:40rem;padding:2rem}}
`;

interface Field {
  name: string;
  label: string;
  autocomplete: string;
  type?: string;
  inputmode?: string;
  required: boolean;
  hint?: string;
}

/** The payer's data a method needs when the checkout has none (SPEC 4.1; 4.2 adds the e-mail). */
function payerFields(method: CheckoutMethod): Field[] {
  return [
    { name: 'name', label: 'Nome completo', autocomplete: 'name', required: true },
    {
      name: 'document',
      label: 'CPF ou CNPJ (só números)',
      autocomplete: 'off',
      inputmode: 'numeric',
      required: true,
    },
    {
      name: 'email',
      label: method === 'boleto' ? 'E-mail' : 'E-mail (opcional)',
      autocomplete: 'email',
      type: 'email',
      required: method === 'boleto',
    },
    {
      name: 'phone',
      label: 'Celular com DDD (só números)',
      autocomplete: 'tel-national',
      type: 'tel',
      inputmode: 'numeric',
      required: true,
    },
    {
      name: 'zip_code',
      label: 'CEP (8 números)',
      autocomplete: 'postal-code',
      inputmode: 'numeric',
      required: true,
    },
    { name: 'street', label: 'Rua', autocomplete: 'address-line1', required: true },
    { name: 'number', label: 'Número', autocomplete: 'off', required: true, hint: 'S/N se não houver' },
    { name: 'complement', label: 'Complemento (opcional)', autocomplete: 'address-line2', required: false },
    { name: 'district', label: 'Bairro', autocomplete: 'address-level3', required: true },
    { name: 'city', label: 'Cidade', autocomplete: 'address-level2', required: true },
  ];
}

function fieldHtml(method: CheckoutMethod, f: Field, view: CheckoutPageView): string {
  const id = `${method}-${f.name}`;
  const value = view.error?.method === method ? (view.values?.[f.name] ?? '') : '';
  const invalid = view.error?.method === method && view.error.field === f.name;
  const attrs = [
    `id="${id}"`,
    `name="${f.name}"`,
    `type="${f.type ?? 'text'}"`,
    `autocomplete="${f.autocomplete}"`,
    f.inputmode ? `inputmode="${f.inputmode}"` : '',
    f.required ? 'required' : '',
    value ? `value="${escapeHtml(value)}"` : '',
    invalid ? `aria-invalid="true" aria-describedby="${method}-error"` : '',
  ].filter(Boolean);
  return `<label for="${id}">${escapeHtml(f.label)}${f.hint ? ` <span class="muted">(${escapeHtml(f.hint)})</span>` : ''}</label>
      <input ${attrs.join(' ')}>`;
}

function stateSelect(method: CheckoutMethod, view: CheckoutPageView): string {
  const chosen = view.error?.method === method ? (view.values?.state ?? '') : '';
  const options = [...BRAZILIAN_STATES]
    .map((s) => `<option value="${s}"${s === chosen ? ' selected' : ''}>${s}</option>`)
    .join('');
  return `<label for="${method}-state">Estado</label>
      <select id="${method}-state" name="state" autocomplete="address-level1" required><option value="">Escolha</option>${options}</select>`;
}

/**
 * The card's inputs (issue 25 item 3): the browser's `cc-*` autocomplete tokens, posted to the gateway only
 * (form-action 'self'), never filled back after a post.
 */
function cardFields(view: CheckoutPageView): string {
  const invalid = (name: string) =>
    view.error?.method === 'credit_card' && view.error.field === name
      ? ' aria-invalid="true" aria-describedby="credit_card-error"'
      : '';
  return `<fieldset>
      <legend>Cartão</legend>
      <label for="cc-holder">Nome impresso no cartão</label>
      <input id="cc-holder" name="cc_holder" type="text" autocomplete="cc-name" required${invalid('cc_holder')}>
      <label for="cc-number">Número do cartão</label>
      <input id="cc-number" name="cc_number" type="text" inputmode="numeric" autocomplete="cc-number" required${invalid('cc_number')}>
      <div class="row">
        <div>
          <label for="cc-exp">Validade (MM/AAAA)</label>
          <input id="cc-exp" name="cc_exp" type="text" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/AAAA" required${invalid('cc_exp')}>
        </div>
        <div>
          <label for="cc-csc">Código de segurança</label>
          <input id="cc-csc" name="cc_csc" type="password" inputmode="numeric" autocomplete="cc-csc" required${invalid('cc_csc')}>
        </div>
      </div>
      <p class="muted">À vista, em 1 parcela. Os dados do cartão vão só para o processador do pagamento e não ficam guardados nesta página.</p>
    </fieldset>`;
}

function methodForm(method: CheckoutMethod, view: CheckoutPageView): string {
  const error =
    view.error?.method === method
      ? `<p class="alert" role="alert" id="${method}-error">${escapeHtml(view.error.message)}</p>`
      : '';
  const payer = view.asksPayer
    ? `<fieldset>
      <legend>Seus dados</legend>
      ${payerFields(method)
        .map((f) => fieldHtml(method, f, view))
        .join('\n      ')}
      ${stateSelect(method, view)}
    </fieldset>`
    : '';
  const what =
    method === 'pix'
      ? 'Receba um QR code e um código Pix Copia e Cola; o pagamento é confirmado em instantes.'
      : method === 'boleto'
        ? 'Receba a linha digitável e o PDF do boleto (com um Pix para pagar mais rápido, quando disponível).'
        : 'Pague à vista com cartão de crédito; a confirmação aparece nesta página.';
  return `<section class="method" aria-labelledby="${method}-title">
  <h3 id="${method}-title">${escapeHtml(METHOD_NAME[method])}</h3>
  <p class="muted">${escapeHtml(what)}</p>
  ${error}
  <form method="post" action="${escapeHtml(view.path)}/pay">
    <input type="hidden" name="method" value="${method}">
    <input type="hidden" name="nonce" value="${escapeHtml(view.nonces[method])}">
    ${method === 'credit_card' ? cardFields(view) : ''}
    ${payer}
    <button type="submit">${escapeHtml(METHOD_BUTTON[method])}</button>
  </form>
</section>`;
}

function passed(iso: string | null | undefined, now: Date): boolean {
  return iso !== null && iso !== undefined && new Date(iso).getTime() <= now.getTime();
}

async function pixBlock(copyPaste: string, deadline: string | null, title: string): Promise<string> {
  return `<section aria-label="${escapeHtml(title)}">
  <h2>${escapeHtml(title)}</h2>
  <p>Abra o app do seu banco, escolha Pix e leia o QR code, ou use o Pix Copia e Cola.</p>
  <div class="qr" role="img" aria-label="QR code Pix">${await pixQrSvg(copyPaste)}</div>
  <label for="pix">Pix Copia e Cola</label>
  <textarea id="pix" readonly rows="${Math.min(8, Math.ceil(copyPaste.length / 38) + 1)}">${escapeHtml(copyPaste)}</textarea>
  <button type="button" data-copy="pix">Copiar código Pix</button>
  ${deadline ? `<p class="muted">Válido até ${escapeHtml(formatInstant(deadline))}.</p>` : ''}
</section>`;
}

/** How to pay the pending charge, by the charge page's rules (only while it is pending). */
async function chargeInstructions(charge: CheckoutPageView['charge'], now: Date): Promise<string> {
  if (!charge) return '';
  const method = METHOD_NAME[charge.method];
  if (charge.status === 'processing' || charge.status === 'unknown') {
    return `<p class="note">Sua cobrança (${escapeHtml(method)}) está em processamento. Aguarde a confirmação antes de pagar; esta página se atualiza sozinha.</p>`;
  }
  if (charge.status !== 'pending') return '';
  const blocks: string[] = [`<h2>Pagamento por ${escapeHtml(method)}</h2>`];
  if (charge.simulated) {
    blocks.push(
      '<p class="note">Cobrança de teste criada no simulador: nenhum banco aceita o pagamento e nenhum dinheiro é movimentado. Não há código para pagar.</p>',
    );
  } else {
    const real = charge.environment === 'production' && charge.livemode;
    if (charge.method === 'pix') {
      if (!real) blocks.push('<p class="note">Pix de teste: não há Pix pagável neste ambiente.</p>');
      else if (passed(charge.expires_at, now))
        blocks.push('<p class="note">O prazo deste Pix terminou. Não pague; escolha de novo abaixo.</p>');
      else if (charge.pix_copy_paste)
        blocks.push(await pixBlock(charge.pix_copy_paste, charge.expires_at, 'Pague com Pix'));
      else
        blocks.push(
          '<p class="note">O código Pix ainda não está disponível. Esta página se atualiza sozinha.</p>',
        );
    } else if (charge.method === 'boleto') {
      if (real && charge.boleto_pix_copy_paste && !passed(charge.boleto_pix_expires_at, now)) {
        blocks.push(
          await pixBlock(charge.boleto_pix_copy_paste, charge.boleto_pix_expires_at, 'Pague com Pix'),
        );
      }
      if (charge.boleto_due_date)
        blocks.push(`<p>Vencimento: ${escapeHtml(formatDate(charge.boleto_due_date))}</p>`);
      if (charge.boleto_digitable_line) {
        blocks.push(`<label for="linha">Linha digitável</label>
  <textarea id="linha" readonly rows="2">${escapeHtml(charge.boleto_digitable_line)}</textarea>
  <button type="button" data-copy="linha">Copiar linha digitável</button>`);
      }
      if (charge.boleto_url) {
        blocks.push(
          `<p><a class="button" href="${escapeHtml(charge.boleto_url)}">Baixar boleto (PDF)</a></p>`,
        );
      }
      if (!charge.boleto_digitable_line && !charge.boleto_url) {
        blocks.push(
          '<p class="note">O boleto ainda está sendo emitido. Esta página se atualiza sozinha.</p>',
        );
      }
    }
  }
  blocks.push(`<p class="muted">Código da cobrança: ${escapeHtml(charge.id)}</p>`);
  return `<section class="card" aria-live="polite">${blocks.join('\n  ')}</section>`;
}

/** The whole page, `<!doctype html>` to `</html>`. */
export async function renderCheckoutPage(
  view: CheckoutPageView,
  options: { now?: Date } = {},
): Promise<string> {
  const now = options.now ?? new Date();
  const status = CHECKOUT_STATUS_LABEL[view.status];
  const banner = view.charge?.simulated
    ? `<div class="banner" role="alert">${escapeHtml(SIMULATED_BANNER)}</div>`
    : !view.livemode || (view.charge !== null && view.charge.environment !== 'production')
      ? `<div class="banner test" role="alert">${escapeHtml(TEST_BANNER)}</div>`
      : '';
  const rows: [string, string][] = [
    ['Referência', view.reference],
    ['Descrição', view.description],
  ];
  if (view.acceptsPayments) rows.push(['Escolha até', formatInstant(view.expiresAt)]);
  const final = FINAL_NOTE[view.status];
  const finalNote = final
    ? `<p class="${view.status === 'completed' ? 'success' : 'alert'}" role="status">${escapeHtml(
        view.status === 'completed' && view.charge?.simulated
          ? 'Pagamento simulado confirmado: nenhum dinheiro foi movimentado.'
          : final,
      )}</p>`
    : '';
  const declined = view.charge?.method === 'credit_card' && view.charge.status === 'failed';
  const retry =
    view.acceptsPayments && view.lastAttemptFailed
      ? `<p class="alert" role="alert">${
          !declined
            ? 'O pagamento anterior não foi concluído. Escolha uma forma de pagamento para tentar de novo.'
            : view.methods.includes('credit_card')
              ? 'O cartão foi recusado. Tente outro cartão ou outra forma de pagamento.'
              : view.methods.length > 0
                ? 'O cartão foi recusado. Este link não aceita mais cartão: escolha outra forma de pagamento.'
                : 'O cartão foi recusado. Este link não aceita mais cartão: fale com quem enviou o link.'
        }</p>`
      : '';
  const pending = view.status === 'processing' ? await chargeInstructions(view.charge, now) : '';
  let choices = '';
  if (view.acceptsPayments && view.methods.length > 0) {
    const forms = view.methods.map((m) => methodForm(m, view)).join('\n');
    choices =
      view.status === 'processing'
        ? `<div class="card"><details${view.error ? ' open' : ''}><summary>Pagar de outra forma</summary>
<p class="muted">Se você escolher outra forma, não pague a cobrança acima.</p>
${forms}
</details></div>`
        : `<div class="card"><h2>Como você quer pagar?</h2>
${forms}
</div>`;
  }
  const amount = formatBRL(view.amount);
  const title = `${view.merchantName ? `Pagamento para ${view.merchantName}` : 'Pagamento'}: ${amount} — ${status}`;
  const main = `${banner}
<div class="card">
  <h1>${view.merchantName ? `Pagamento para <span class="merchant">${escapeHtml(view.merchantName)}</span>` : 'Pagamento'}</h1>
  <p class="amount">${escapeHtml(amount)}</p>
  <p><span class="status status-${STATUS_CLASS[view.status]}">${escapeHtml(status)}</span></p>
  ${finalNote}
  ${retry}
  <dl>
${rows.map(([k, v]) => `    <dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('\n')}
  </dl>
</div>
${pending}
${choices}
<footer>Pagamento processado por Calebe · Código: ${escapeHtml(view.id)}</footer>
`;
  return payerPageHtml({
    title,
    css: CSS,
    main,
    script: SCRIPT,
    // What the page's script polls and reloads by (the status read and the state it last showed).
    mainAttributes: ` data-page="${escapeHtml(view.path)}" data-status="${escapeHtml(view.path)}/status" data-state="${escapeHtml(view.stateToken)}"`,
  });
}
