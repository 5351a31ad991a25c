import type { PayoutBankAccount } from '../port.ts';

/**
 * A Brazilian bank account as Safe2Pay takes it, for a payout's receiver (transfers.ts) or a subaccount's
 * account (subaccounts.ts): one check before sending and one `BankData` shape on the wire (wire doc §2.12,
 * wave 2b §5.2).
 */

/** Bank code of 3 digits, branch and account of digits, each check digit one digit or X, a known type. */
export function validBankAccount(b: PayoutBankAccount): boolean {
  const digit = (v: string | null | undefined) => v === undefined || v === null || /^[0-9Xx]$/.test(v);
  return (
    /^[0-9]{3}$/.test(b.bank_code) &&
    /^[0-9]{1,5}$/.test(b.branch) &&
    /^[0-9]{1,19}$/.test(b.account) &&
    digit(b.branch_digit) &&
    digit(b.account_digit) &&
    (b.account_type === 'checking' || b.account_type === 'savings')
  );
}

/** Safe2Pay's `BankData`: checking `CC`, savings `PP`; a check digit only when there is one. */
export function bankData(b: PayoutBankAccount): Record<string, unknown> {
  return {
    Bank: { Code: b.bank_code },
    AccountType: { Code: b.account_type === 'checking' ? 'CC' : 'PP' },
    BankAgency: b.branch,
    ...(b.branch_digit ? { BankAgencyDigit: b.branch_digit.toUpperCase() } : {}),
    BankAccount: b.account,
    ...(b.account_digit ? { BankAccountDigit: b.account_digit.toUpperCase() } : {}),
  };
}
