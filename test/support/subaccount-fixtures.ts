import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { COMPANY_EXAMPLE } from '../../src/contract/operations/subaccounts.ts';
import type { PortSubaccount } from '../../src/providers/port.ts';
import type { ExternalProviderWorld } from './external-provider.ts';

/**
 * Issue 28: a subaccount as the port creates it and as the wire carries it (wave 2b §4.1), for the emulator
 * and adapter tests. The responsible's CPF is a valid one (check digits), so the emulator's 1343 stays away.
 */
export const VALID_CPF = '52998224725';
export const INVALID_CPF = '52998224700';

export function portSubaccount(document: string, extra: Partial<PortSubaccount> = {}): PortSubaccount {
  return {
    name: 'Loja Filha Ltda',
    commercialName: 'Loja Filha',
    document,
    email: 'financeiro@lojafilha.example',
    responsible: {
      name: 'Maria Responsável',
      document: VALID_CPF,
      phone: '11987654321',
      birthDate: '1980-05-17',
    },
    address: {
      zip_code: '01310100',
      street: 'Avenida Paulista',
      number: '1000',
      district: 'Bela Vista',
      city: 'São Paulo',
      state: 'SP',
    },
    bankAccount: {
      bank_code: '341',
      branch: '0937',
      account: '4455667',
      account_digit: '8',
      account_type: 'checking',
    },
    ...extra,
  };
}

/** The `Merchant` body the wire takes (wave 2b §4.1), for calls made straight to the emulator. */
export function merchant(identity: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    Identity: identity,
    Name: 'Loja Filha Ltda',
    CommercialName: 'Loja Filha',
    Email: 'financeiro@lojafilha.example',
    ResponsibleName: 'Maria Responsável',
    ResponsibleIdentity: VALID_CPF,
    ResponsiblePhone: '11987654321',
    ResponsibleBirthDate: '1980-05-17',
    Address: {
      ZipCode: '01310100',
      Street: 'Avenida Paulista',
      Number: '1000',
      District: 'Bela Vista',
      CityName: 'São Paulo',
      StateInitials: 'SP',
      CountryName: 'Brasil',
    },
    BankData: {
      Bank: { Code: '341' },
      AccountType: { Code: 'CC' },
      BankAgency: '0937',
      BankAccount: '4455667',
      BankAccountDigit: '8',
    },
    ...extra,
  };
}

/**
 * The responsible person, address and payout account of a subaccount as an API client sends them
 * (`POST /admin/subaccounts`, a subtenant's `subaccount`): the API reference's own example, whose CPF is
 * valid, so the emulator's 1343 stays away.
 */
export const COMPANY_PARTS = COMPANY_EXAMPLE;

/**
 * A `POST /admin/subaccounts` body linking `tenantId` at `providerId`, with `document` (a freshDocument) and
 * the company parts; `over` replaces any field.
 */
export function subaccountRequest(
  providerId: string,
  tenantId: string,
  document: string,
  over: Record<string, unknown> = {},
) {
  return {
    provider_id: providerId,
    tenant_id: tenantId,
    name: 'Loja Filha Ltda',
    commercial_name: 'Loja Filha',
    document,
    email: 'financeiro@lojafilha.example',
    ...COMPANY_PARTS,
    ...over,
  };
}

/** Every token the emulator holds for its subaccounts (what must never rest in clear on the gateway's side). */
export async function subaccountTokensAt(emulatorUrl: string): Promise<string[]> {
  const res = await fetch(`${emulatorUrl}/_emulator/subaccounts`);
  const json = (await res.json()) as { subaccounts: Record<string, unknown>[] };
  return json.subaccounts.flatMap((s) =>
    ['Token', 'TokenSandbox', 'SecretKey', 'SecretKeySandbox']
      .map((f) => s[f])
      .filter((v): v is string => typeof v === 'string' && v.length > 0),
  );
}

let documents = 0;
/**
 * A fresh valid-format CNPJ per call (the emulator refuses a second live account with one document);
 * `suffix` keeps the files that share an emulator apart.
 */
export function freshDocument(suffix = '81'): string {
  documents += 1;
  return `${String(Date.now() % 1e8).padStart(8, '0')}${String(documents).padStart(4, '0')}${suffix}`.slice(
    0,
    14,
  );
}

/** An external provider record on the world's emulator (a marketplace unless said otherwise), by the panel. */
export async function emulatorProvider(
  world: ExternalProviderWorld,
  environment: string,
  credentials: Record<string, string>,
  isMarketplace = true,
  methods: readonly string[] = ['pix', 'boleto'],
): Promise<string> {
  const res = await world.app.request('POST', '/admin/providers', {
    headers: world.admin,
    json: {
      name: `Marketplace ${randomUUID()}`,
      kind: 'external',
      environment,
      enabled_methods: methods,
      is_marketplace: isMarketplace,
      credentials,
      payment_host: world.emulator.paymentUrl,
      api_host: world.emulator.apiUrl,
    },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}
