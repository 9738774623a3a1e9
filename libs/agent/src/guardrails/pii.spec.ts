import { pendingPiiStart, piiSpans, scanPii } from './pii';

describe('scanPii', () => {
  describe('e-mail addresses', () => {
    it('replaces an address, dots, plus tags and subdomains included', () => {
      expect(scanPii('write to jane.doe+news@mail.example.co.uk today')).toEqual({
        redacted: 'write to [EMAIL] today',
        kinds: ['email'],
      });
    });

    it('leaves an @ handle without a domain alone', () => {
      expect(scanPii('ping @jane or jane@localhost')).toEqual({
        redacted: 'ping @jane or jane@localhost',
        kinds: [],
      });
    });
  });

  describe('payment cards', () => {
    it('replaces a number that passes Luhn, written in groups or as one run', () => {
      expect(scanPii('card 4111 1111 1111 1111, or 5500-0000-0000-0004, or 378282246310005').redacted).toBe(
        'card [CARD], or [CARD], or [CARD]',
      );
    });

    it('leaves a number whose Luhn check digit is wrong alone', () => {
      expect(scanPii('card 4111 1111 1111 1112')).toEqual({
        redacted: 'card 4111 1111 1111 1112',
        kinds: [],
      });
    });
  });

  describe('IBANs', () => {
    it('replaces an IBAN with valid check digits, grouped or compact, and stops before the word after it', () => {
      expect(scanPii('pay DE89 3704 0044 0532 0130 00 AND thanks; GB82WEST12345698765432')).toEqual({
        redacted: 'pay [IBAN] AND thanks; [IBAN]',
        kinds: ['iban'],
      });
    });

    it('leaves an IBAN whose check digits are wrong alone', () => {
      expect(scanPii('pay DE88 3704 0044 0532 0130 00')).toEqual({
        redacted: 'pay DE88 3704 0044 0532 0130 00',
        kinds: [],
      });
    });
  });

  describe('phone numbers', () => {
    it('replaces international, area-code and plain ten-digit numbers', () => {
      expect(scanPii('call +49 30 1234567, (030) 123-4567 or 0612345678').redacted).toBe(
        'call [PHONE], [PHONE] or [PHONE]',
      );
    });

    it('leaves dates, amounts and short numbers alone', () => {
      const text = 'on 2026-11-28 I paid 1500 euros for order 12345678 (room 42)';
      expect(scanPii(text)).toEqual({ redacted: text, kinds: [] });
    });
  });

  it('names each kind found once, in order, across a message holding all four', () => {
    const scan = scanPii(
      'I am jo@example.org, +1 415 555 0100, card 4242424242424242, IBAN FR14 2004 1010 0505 0001 3M02 606; ' +
        'also me@example.org',
    );
    expect(scan.kinds).toEqual(['email', 'iban', 'card', 'phone']);
    expect(scan.redacted).toBe('I am [EMAIL], [PHONE], card [CARD], IBAN [IBAN]; also [EMAIL]');
  });
});

describe('pendingPiiStart', () => {
  it('points at the last word, a run of digits, or an IBAN still being written', () => {
    expect(pendingPiiStart('write to jane.d')).toBe('write to '.length);
    expect(pendingPiiStart('done. ')).toBe('done. '.length);
    expect(pendingPiiStart('call +49 30 12')).toBe('call '.length);
    expect(pendingPiiStart('IBAN DE89 3704 0044 ')).toBe('IBAN '.length);
  });
});

describe('piiSpans', () => {
  it('finds each finding where it is', () => {
    const text = 'mail a@b.io, card 4111 1111 1111 1111';
    expect(piiSpans(text)).toEqual([
      { start: 5, end: 11 },
      { start: 18, end: text.length },
    ]);
  });
});

describe('pendingPiiStart after a word', () => {
  it('holds no digits that end a word: no number starts inside one', () => {
    expect(pendingPiiStart('see word17 ')).toBe('see word17 '.length);
    expect(pendingPiiStart('see word17 +49 30')).toBe('see word17 '.length);
  });
});
