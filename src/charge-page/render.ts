import { createHash } from 'node:crypto';
import QRCode from 'qrcode';
import type { ChargeMethod, StoredMethod } from '../aggregates/transaction.ts';

/**
 * The charge page a payer opens from `document_url` (SPEC 2.2), server-rendered in Portuguese.
 * Self-contained: inline CSS, the QR code as inline SVG, one small inline script (copy button) allowed by
 * hash in CHARGE_PAGE_CSP; nothing is loaded from anywhere (docs/decisions.md "Charges").
 *
 * What is payable (SPEC 1, 3.1):
 * - payment instructions appear only while `status` is `pending`, never in a final state (paid, expired,
 *   failed, refunded) nor while `processing`/`unknown` (the payer may already have paid);
 * - `simulated: true`: a banner "SIMULADO — não pagável" and nothing scannable or copyable at all (the
 *   simulator's Pix payload is a test marker no bank accepts; it is not even printed);
 * - `simulated: false` in `sandbox` (provider test boleto): a test banner; digitable line and PDF only,
 *   never a Pix (the provider has no Pix sandbox);
 * - a Pix QR code only for a real production charge, from `pix_copy_paste` (or `boleto_pix_copy_paste`),
 *   while its deadline has not passed;
 * - a scheduled Pix Automatic debit (`pix_automatic_authorization_id` set) is never shown with a QR code.
 */

export type ChargeStatus = 'processing' | 'pending' | 'paid' | 'expired' | 'failed' | 'unknown' | 'refunded';

/** The fields of a Transaction (SPEC 2.2) the page shows, with the same names. Timestamps are ISO UTC. */
export interface ChargePageView {
  id: string;
  /** Who is charging: the tenant's current name (SPEC 2.2 `tenant_id`, resolved by the route). */
  merchant_name?: string | null;
  method: StoredMethod;
  status: ChargeStatus;
  /** Integer centavos. */
  amount: number;
  currency: 'BRL';
  reference: string;
  /** From the creation request (SPEC 4.1 `description`); not a Transaction field, so optional. */
  description?: string | null;
  simulated: boolean;
  environment: 'sandbox' | 'production';
  livemode: boolean;
  pix_copy_paste: string | null;
  expires_at: string | null;
  /** `YYYY-MM-DD`, a business date (no time zone). */
  boleto_due_date: string | null;
  boleto_url: string | null;
  boleto_digitable_line: string | null;
  boleto_pix_copy_paste: string | null;
  boleto_pix_expires_at: string | null;
  paid_with: ChargeMethod | null;
  pix_automatic_authorization_id?: string | null;
  scheduled_due_date?: string | null;
}

export interface RenderOptions {
  /** The instant the page is rendered for; a Pix past its deadline is not shown. Default: now. */
  now?: Date;
}

export const STATUS_LABEL: Record<ChargeStatus, string> = {
  processing: 'Em processamento',
  pending: 'Aguardando pagamento',
  paid: 'Pago',
  expired: 'Expirado',
  failed: 'Falhou',
  unknown: 'Situação não confirmada',
  refunded: 'Estornado',
};

export const SIMULATED_BANNER = 'SIMULADO — não pagável';
export const TEST_BANNER = 'AMBIENTE DE TESTE — sem valor real';

const STATUS_NOTE: Record<ChargeStatus, string> = {
  processing: 'Esta cobrança está em processamento. Aguarde a confirmação antes de pagar.',
  pending: '',
  paid: 'Pagamento confirmado. Nada mais a pagar.',
  expired: 'O prazo desta cobrança terminou. Não pague; peça uma nova cobrança a quem a enviou.',
  failed: 'Esta cobrança não pôde ser emitida. Não há nada a pagar; fale com quem a enviou.',
  unknown: 'Não foi possível confirmar a situação desta cobrança. Não pague de novo; fale com quem a enviou.',
  refunded: 'O pagamento desta cobrança foi devolvido.',
};

/** The usual five-character HTML escape; every interpolated text goes through it (attributes are quoted). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/**
 * Issue 25 "Performance": `Intl.*.formatToParts` was the payer pages' costliest own code (~35 µs for an
 * amount and ~45 µs for an instant, per page). Both functions are pure, so their results are remembered: a
 * page shows the same amount and deadline on every load. Bounded: a full memo is emptied, never evicted one by
 * one (a page loads a handful of values; the bound only stops unbounded growth).
 */
const MEMO_LIMIT = 4096;
const brlMemo = new Map<number, string>();
const instantMemo = new Map<string, string>();

function remember<K>(memo: Map<K, string>, key: K, value: string): string {
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, value);
  return value;
}

/**
 * `R$ 12,50` from integer centavos. Intl formats the whole reais (a bigint) and the centavos are put in
 * its fraction part, so no binary fraction is ever involved, at any size. Intl puts a no-break space
 * after `R$`.
 */
export function formatBRL(centavos: number): string {
  const known = brlMemo.get(centavos);
  if (known !== undefined) return known;
  if (!Number.isSafeInteger(centavos) || centavos < 0) {
    throw new RangeError('amount must be a non-negative integer of centavos');
  }
  const cents = String(centavos % 100).padStart(2, '0');
  return remember(
    brlMemo,
    centavos,
    brl
      .formatToParts(BigInt(centavos - (centavos % 100)) / 100n)
      .map((p) => (p.type === 'fraction' ? cents : p.value))
      .join(''),
  );
}

const saoPaulo = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Sao_Paulo',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** An instant in Brasília time: `21/11/2026 às 09:56 (horário de Brasília)`. */
export function formatInstant(iso: string): string {
  const known = instantMemo.get(iso);
  if (known !== undefined) return known;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) throw new RangeError(`not a timestamp: ${iso}`);
  const parts = Object.fromEntries(saoPaulo.formatToParts(date).map((p) => [p.type, p.value]));
  return remember(
    instantMemo,
    iso,
    `${parts.day}/${parts.month}/${parts.year} às ${parts.hour}:${parts.minute} (horário de Brasília)`,
  );
}

/** A business date `YYYY-MM-DD` as `DD/MM/YYYY`, without any time-zone shift. */
export function formatDate(ymd: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  if (!m) throw new RangeError(`not a date: ${ymd}`);
  return `${m[3]}/${m[2]}/${m[1]}`;
}

/** Copy button: the only script on the page, allowed by its hash in CHARGE_PAGE_CSP. */
export const COPY_SCRIPT =
  "document.querySelectorAll('button[data-copy]').forEach(function(b){b.addEventListener('click',function(){" +
  "var t=document.getElementById(b.getAttribute('data-copy'));t.select();" +
  "if(navigator.clipboard){navigator.clipboard.writeText(t.value)}else{document.execCommand('copy')}" +
  "b.textContent='Copiado!';});});";

/**
 * A payer page's Content-Security-Policy: nothing loaded from anywhere else, inline styles, images only as
 * data, its one inline script allowed by hash; then the page's own directives.
 */
export function payerPageCsp(script: string, own: readonly string[]): string {
  return [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    'img-src data:',
    `script-src 'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'`,
    ...own,
  ].join('; ');
}

/** Content-Security-Policy the route must send with the page: no external loads at all. */
export const CHARGE_PAGE_CSP = payerPageCsp(COPY_SCRIPT, [
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
]);

/** The QR code of a Pix copy-and-paste text, as an inline SVG element (no external request). */
export async function pixQrSvg(copyPaste: string): Promise<string> {
  const svg = await QRCode.toString(copyPaste, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  return svg.trim();
}

function passed(iso: string | null | undefined, now: Date): boolean {
  return iso !== null && iso !== undefined && new Date(iso).getTime() <= now.getTime();
}

async function pixBlock(
  id: string,
  copyPaste: string,
  deadline: string | null,
  title: string,
): Promise<string> {
  const qr = await pixQrSvg(copyPaste);
  return `<section class="pay" aria-label="${escapeHtml(title)}">
  <h2>${escapeHtml(title)}</h2>
  <p>Abra o app do seu banco, escolha Pix e leia o QR code, ou use o Pix Copia e Cola.</p>
  <div class="qr" role="img" aria-label="QR code Pix">${qr}</div>
  <label for="${id}">Pix Copia e Cola</label>
  <textarea id="${id}" readonly rows="${Math.min(8, Math.ceil(copyPaste.length / 38) + 1)}">${escapeHtml(copyPaste)}</textarea>
  <button type="button" data-copy="${id}">Copiar código Pix</button>
  ${deadline ? `<p class="muted">Válido até ${escapeHtml(formatInstant(deadline))}.</p>` : ''}
</section>`;
}

function boletoBlock(view: ChargePageView): string {
  const parts: string[] = [];
  if (view.boleto_digitable_line) {
    parts.push(`<label for="linha">Linha digitável</label>
  <textarea id="linha" readonly rows="2">${escapeHtml(view.boleto_digitable_line)}</textarea>
  <button type="button" data-copy="linha">Copiar linha digitável</button>`);
  }
  if (view.boleto_url) {
    parts.push(`<p><a class="button" href="${escapeHtml(view.boleto_url)}">Baixar boleto (PDF)</a></p>`);
  }
  if (parts.length === 0) {
    parts.push('<p>O boleto ainda está sendo emitido. Atualize esta página em alguns instantes.</p>');
  }
  return `<section class="pay" aria-label="Boleto">
  <h2>Boleto</h2>
  ${parts.join('\n  ')}
</section>`;
}

async function instructions(view: ChargePageView, now: Date): Promise<string> {
  if (view.status !== 'pending') return '';
  if (view.simulated) {
    return '<p class="note">Cobrança de teste criada no simulador: nenhum banco aceita o pagamento e nenhum dinheiro é movimentado. Não há código para pagar.</p>';
  }
  if (view.pix_automatic_authorization_id) {
    const when = view.scheduled_due_date ? ` para ${escapeHtml(formatDate(view.scheduled_due_date))}` : '';
    return `<p class="note">Débito Pix Automático agendado${when}. Nada a pagar nesta página.</p>`;
  }
  const real = view.environment === 'production' && view.livemode;
  const blocks: string[] = [];
  if (view.method === 'pix') {
    if (!real) {
      blocks.push('<p class="note">Pix de teste: não há Pix pagável neste ambiente.</p>');
    } else if (passed(view.expires_at, now)) {
      blocks.push('<p class="note">O prazo deste Pix terminou. Não pague; peça uma nova cobrança.</p>');
    } else if (view.pix_copy_paste) {
      blocks.push(await pixBlock('pix', view.pix_copy_paste, view.expires_at, 'Pague com Pix'));
    } else {
      blocks.push(
        '<p class="note">O código Pix ainda não está disponível. Atualize esta página em instantes.</p>',
      );
    }
  } else if (view.method === 'boleto') {
    if (real && view.boleto_pix_copy_paste && !passed(view.boleto_pix_expires_at, now)) {
      blocks.push(
        await pixBlock('pix', view.boleto_pix_copy_paste, view.boleto_pix_expires_at, 'Pague com Pix'),
      );
    }
    blocks.push(boletoBlock(view));
  }
  return blocks.join('\n');
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;background:#f3f4f6;color:#111827;line-height:1.45}
main{max-width:32rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.1rem;margin:0 0 .25rem;color:#374151}
h2{font-size:1.05rem;margin:1rem 0 .5rem}
.amount{font-size:2.25rem;font-weight:700;margin:.25rem 0}
.status{display:inline-block;padding:.2rem .65rem;border-radius:999px;font-weight:600;font-size:.95rem;background:#e5e7eb}
.status-pending{background:#fef3c7;color:#92400e}.status-paid{background:#d1fae5;color:#065f46}
.status-expired,.status-failed{background:#fee2e2;color:#991b1b}.status-refunded{background:#e0e7ff;color:#3730a3}
.status-unknown,.status-processing{background:#e5e7eb;color:#374151}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem .75rem;margin:1rem 0}dt{color:#6b7280}dd{margin:0;overflow-wrap:anywhere}
.banner{background:#b91c1c;color:#fff;font-weight:800;font-size:1.35rem;text-align:center;padding:.9rem;border-radius:12px;margin-bottom:1rem;letter-spacing:.02em}
.banner.test{background:#92400e}
.note{background:#f9fafb;border-left:4px solid #9ca3af;padding:.6rem .8rem;margin:1rem 0}
.qr{width:16rem;max-width:100%;margin:.5rem auto;background:#fff}.qr svg{display:block;width:100%;height:auto}
label{display:block;font-weight:600;margin-top:.75rem}
textarea{width:100%;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem;padding:.5rem;border:1px solid #d1d5db;border-radius:8px;resize:none}
button,.button{display:inline-block;margin-top:.5rem;padding:.6rem 1rem;border:0;border-radius:8px;background:#1d4ed8;color:#fff;font-size:1rem;text-decoration:none;cursor:pointer}
.muted{color:#6b7280;font-size:.9rem}
footer{color:#6b7280;font-size:.8rem;text-align:center;margin-top:1rem}
`;

/** The whole page, `<!doctype html>` to `</html>`. */
export async function renderChargePage(view: ChargePageView, options: RenderOptions = {}): Promise<string> {
  const now = options.now ?? new Date();
  const status = STATUS_LABEL[view.status];
  const scheduled = view.status === 'pending' && Boolean(view.pix_automatic_authorization_id);
  const statusText = scheduled ? 'Débito agendado' : status;
  const banner = view.simulated
    ? `<div class="banner" role="alert">${escapeHtml(SIMULATED_BANNER)}</div>`
    : view.environment !== 'production' || !view.livemode
      ? `<div class="banner test" role="alert">${escapeHtml(TEST_BANNER)}</div>`
      : '';
  const rows: [string, string][] = [['Referência', view.reference]];
  if (view.description) rows.push(['Descrição', view.description]);
  if (view.method === 'boleto' && view.boleto_due_date)
    rows.push(['Vencimento', formatDate(view.boleto_due_date)]);
  if (view.method === 'pix' && view.expires_at && view.status === 'pending') {
    rows.push(['Expira em', formatInstant(view.expires_at)]);
  }
  if (view.status === 'paid' && view.paid_with)
    rows.push(['Pago com', view.paid_with === 'pix' ? 'Pix' : 'Boleto']);
  const methodName = { pix: 'Pix', boleto: 'Boleto', credit_card: 'Cartão de crédito' }[view.method];
  rows.push(['Forma de pagamento', methodName]);
  const note =
    view.simulated && view.status === 'paid'
      ? 'Pagamento simulado: nenhum dinheiro foi movimentado.'
      : STATUS_NOTE[view.status];

  const title = `Cobrança ${formatBRL(view.amount)}${view.merchant_name ? ` de ${view.merchant_name}` : ''} — ${statusText}`;
  const main = `${banner}
<div class="card">
  <h1>${view.merchant_name ? `Cobrança de <span class="merchant">${escapeHtml(view.merchant_name)}</span>` : 'Cobrança'}</h1>
  <p class="amount">${escapeHtml(formatBRL(view.amount))}</p>
  <p><span class="status status-${view.status}">${escapeHtml(statusText)}</span></p>
  ${note ? `<p class="note">${escapeHtml(note)}</p>` : ''}
  <dl>
${rows.map(([k, v]) => `    <dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('\n')}
  </dl>
  ${await instructions(view, now)}
</div>
<footer>Código da cobrança: ${escapeHtml(view.id)}</footer>
`;
  return pageHtml(title, main, COPY_SCRIPT);
}

/**
 * What a payer sees for a link that leads nowhere (a wrong or truncated signature, an unknown charge): a
 * page in Portuguese, never the API's JSON. It says nothing about which part is wrong, like the 404 itself.
 */
export function renderNotFoundPage(): string {
  return pageHtml(
    'Cobrança não encontrada',
    `<div class="card">
  <h1>Cobrança não encontrada</h1>
  <p class="note">${escapeHtml(NOT_FOUND_TEXT)}</p>
  <p>Confira se o endereço foi copiado por inteiro. Se o problema continuar, peça um novo link a quem enviou a cobrança. Não faça nenhum pagamento a partir desta página.</p>
</div>
`,
  );
}

/**
 * Every page of the payer's (the charge page, the checkout page): Portuguese, kept out of indexes, styled
 * inline (CSP), with at most one inline script that the page's CSP allows by its hash. `referrer`: a page that
 * also sets its referrer policy in the document; `mainAttributes`: the page's own, already escaped.
 */
export function payerPageHtml(page: {
  readonly title: string;
  readonly css: string;
  readonly main: string;
  readonly script?: string;
  readonly referrer?: string;
  readonly mainAttributes?: string;
}): string {
  const referrer = page.referrer === undefined ? '' : `<meta name="referrer" content="${page.referrer}">\n`;
  const script = page.script === undefined ? '' : `<script>${page.script}</script>\n`;
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
${referrer}<title>${escapeHtml(page.title)}</title>
<style>${page.css}</style>
</head>
<body>
<main${page.mainAttributes ?? ''}>
${page.main}</main>
${script}</body>
</html>
`;
}

/** The charge page's shell: it also tells the document itself to send no referrer. */
function pageHtml(title: string, main: string, script?: string): string {
  return payerPageHtml({ title, css: CSS, main, script, referrer: 'no-referrer' });
}

export const NOT_FOUND_TEXT =
  'Não encontramos esta cobrança: o link está incompleto, foi alterado ou não existe.';
