import isIBAN from 'validator/lib/isIBAN';
import isLuhnNumber from 'validator/lib/isLuhnNumber';

/** The kinds of personal data a guardrail looks for (CONTRACTS §24). */
export type PiiKind = 'email' | 'phone' | 'card' | 'iban';

/** What each kind becomes in a redacted text. */
export const PII_PLACEHOLDERS: Record<PiiKind, string> = {
  email: '[EMAIL]',
  phone: '[PHONE]',
  card: '[CARD]',
  iban: '[IBAN]',
};

interface PiiRule {
  kind: PiiKind;
  /** Candidates; `found` confirms them (a check digit, a digit count). */
  pattern: RegExp;
  /** How many characters at the start of a candidate are the kind; 0: none. */
  found: (match: string) => number;
}

const digitsOf = (text: string) => text.replace(/\D/g, '');

/**
 * The longest start of a candidate, cut between its groups, that is an IBAN (its country's length and format,
 * mod-97 check digits): the pattern may run on into a word written after it (`… 0130 00 AND`).
 */
function longestIban(match: string): number {
  for (let end = match.length; end > 0; end = match.lastIndexOf(' ', end - 1)) {
    if (isIBAN(match.slice(0, end).replace(/ /g, '').toUpperCase())) return end;
  }
  return 0;
}

/**
 * The rules, in the order they run: each replaces what it finds before the next looks, so an IBAN's or a card's
 * digits are never taken for a phone number. Candidates are found by pattern and confirmed by the check a
 * validator library does (an IBAN's country format and mod-97 check digits, a card's Luhn digit).
 */
const RULES: readonly PiiRule[] = [
  {
    kind: 'email',
    pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
    found: (match) => match.length,
  },
  {
    kind: 'iban',
    // Two letters, two check digits, then 11 to 30 letters or digits, in groups of four as people write them.
    pattern: /\b[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}\b/g,
    found: longestIban,
  },
  {
    kind: 'card',
    // 13 to 19 digits, optionally in groups split by spaces or dashes.
    pattern: /\b\d(?:[ -]?\d){12,18}\b/g,
    found: (match) => (isLuhnNumber(digitsOf(match)) ? match.length : 0),
  },
  {
    kind: 'phone',
    // An optional +country code, an optional (area code), then groups of digits split by spaces, dots or dashes.
    pattern: /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]?\d{2,5}){1,5}(?!\w)/g,
    found: (match) => {
      const digits = digitsOf(match).length;
      // 7 to 15 digits (E.164); a bare run of digits is a phone number only from 9 digits on, so that amounts,
      // years and dates (2026-11-28) are left alone.
      if (digits < 7 || digits > 15) return 0;
      return /^[+(]/.test(match) || digits >= 9 ? match.length : 0;
    },
  },
];

export interface PiiScan {
  /** The text with every finding replaced by its placeholder. */
  redacted: string;
  /** The kinds found, each once, in the rules' order. */
  kinds: PiiKind[];
}

/** Finds e-mail addresses, IBANs (valid check digits), payment cards (Luhn) and phone numbers in a text. */
export function scanPii(text: string): PiiScan {
  const kinds: PiiKind[] = [];
  let redacted = text;
  for (const rule of RULES) {
    let found = false;
    redacted = redacted.replace(rule.pattern, (match) => {
      const length = rule.found(match);
      if (length === 0) return match;
      found = true;
      return PII_PLACEHOLDERS[rule.kind] + match.slice(length);
    });
    if (found) kinds.push(rule.kind);
  }
  return { redacted, kinds };
}
