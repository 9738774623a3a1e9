import isIBAN from 'validator/lib/isIBAN';
import isLuhnNumber from 'validator/lib/isLuhnNumber';

/** The kinds of personal data a guardrail looks for (CONTRACTS §24). */
export type PiiKind = 'email' | 'phone' | 'card' | 'iban';

/** What each kind becomes in a redacted text. */
const PII_PLACEHOLDERS: Record<PiiKind, string> = {
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

interface PiiScan {
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

/** Where each finding is: every rule on the text as written (two rules' findings may overlap). */
export function piiSpans(text: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  for (const rule of RULES) {
    for (const match of text.matchAll(rule.pattern)) {
      const length = rule.found(match[0]);
      if (length > 0) spans.push({ start: match.index, end: match.index + length });
    }
  }
  return spans;
}

const EMAIL_CHAR = /[A-Za-z0-9._%+@-]/;
const NUMBER_CHAR = /[\d .()+-]/;
const NUMBER_START = /[\d+(]/;
const WORD_CHAR = /\w/;
/**
 * An IBAN being written: two letters starting a word, two check digits, then letters and digits in groups split by
 * one space.
 */
const IBAN_IN_PROGRESS = /(?<!\w)[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9])* ?$/;
/** The longest IBAN candidate the IBAN rule reads: four characters, then up to 30 each after a space. */
const IBAN_MAX_CHARS = 64;

/**
 * Where a finding that more text could still complete may start in `text` (its length when none can): the run
 * of e-mail characters at its end (an address, or the start of any other kind), the first place a phone or card
 * number may start (a digit, `+` or `(` after no letter or digit) in the run of digits and their separators at
 * its end, or an IBAN whose groups reach its end. Text before this point reads the same whatever follows (but for
 * a finding that crosses it: see piiSpans).
 */
export function pendingPiiStart(text: string): number {
  let start = text.length;
  while (start > 0 && EMAIL_CHAR.test(text[start - 1])) start--;
  let number = text.length;
  while (number > 0 && NUMBER_CHAR.test(text[number - 1])) number--;
  const numberStarts = (at: number) =>
    NUMBER_START.test(text[at]) && (at === 0 || !WORD_CHAR.test(text[at - 1]));
  while (number < text.length && !numberStarts(number)) number++;
  if (/\d/.test(text.slice(number))) start = Math.min(start, number);
  const tail = text.length - Math.min(text.length, IBAN_MAX_CHARS);
  const iban = IBAN_IN_PROGRESS.exec(text.slice(tail));
  if (iban) start = Math.min(start, tail + iban.index);
  return start;
}
