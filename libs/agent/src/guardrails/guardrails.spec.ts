import { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { GuardrailSettings, MessageEntity } from '@app/persistence';
import { ModelProvider } from '../models/model-provider';
import { guardedHistory, Guardrails, OutputWatch } from './guardrails';

const settings = (values: Partial<GuardrailSettings>): GuardrailSettings => ({
  pii: 'off',
  blockedTerms: [],
  moderationModel: null,
  ...values,
});

/** A moderation model that streams `answer`, or whose call fails. */
function moderation(answer: string | Error): ModelProvider {
  const model = {
    doStream: async () => {
      if (answer instanceof Error) throw answer;
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'text-delta', id: 't', delta: answer });
            controller.enqueue({
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: {
                inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: 1, text: 1, reasoning: 0 },
              },
            });
            controller.close();
          },
        }),
      };
    },
  } as unknown as LanguageModelV3;
  return { languageModel: () => model } as unknown as ModelProvider;
}

const signal = new AbortController().signal;

describe('Guardrails.checkInput', () => {
  it('names each kind of PII it redacts, and lets the message through', async () => {
    const check = await new Guardrails(moderation('OK')).checkInput(
      settings({ pii: 'redact' }),
      'me: a@b.io, +1 415 555 0100',
      signal,
    );
    expect(check).toEqual({
      blocked: false,
      usage: { inputTokens: 0, outputTokens: 0 },
      triggers: [
        { stage: 'input', kind: 'email', action: 'redacted' },
        { stage: 'input', kind: 'phone', action: 'redacted' },
      ],
    });
  });

  it('blocks on PII under block, on a blocked term whatever its case, and on a moderation flag', async () => {
    const guard = new Guardrails(moderation('FLAGGED'));
    expect(await guard.checkInput(settings({ pii: 'block' }), 'a@b.io', signal)).toMatchObject({
      blocked: true,
    });
    expect(
      await guard.checkInput(settings({ blockedTerms: ['Secret Plan'] }), 'the SECRET plan', signal),
    ).toMatchObject({
      blocked: true,
      triggers: [{ stage: 'input', kind: 'blocked_term', action: 'blocked' }],
    });
    // What the moderation model spent comes back with its verdict, to be counted with the reply.
    expect(await guard.checkInput(settings({ moderationModel: 'openai:m' }), 'hello', signal)).toEqual({
      blocked: true,
      usage: { inputTokens: 12, outputTokens: 1 },
      triggers: [{ stage: 'input', kind: 'moderation', action: 'blocked' }],
    });
  });

  it('fails closed: a moderation model that cannot answer, or answers nothing, blocks', async () => {
    for (const answer of [new Error('vendor down'), '']) {
      const check = await new Guardrails(moderation(answer)).checkInput(
        settings({ moderationModel: 'openai:m' }),
        'hello',
        signal,
      );
      expect(check.blocked).toBe(true);
    }
    const allowed = await new Guardrails(moderation('OK')).checkInput(
      settings({ moderationModel: 'openai:m' }),
      'hello',
      signal,
    );
    expect(allowed).toEqual({ blocked: false, triggers: [], usage: { inputTokens: 12, outputTokens: 1 } });
  });

  it('checks the reply with the moderation model once it is written', async () => {
    await expect(
      new Guardrails(moderation('FLAGGED')).checkOutput(
        settings({ moderationModel: 'openai:m' }),
        'x',
        signal,
      ),
    ).rejects.toMatchObject({ usage: { inputTokens: 12, outputTokens: 1 } });
    await expect(
      new Guardrails(moderation('OK')).checkOutput(settings({ moderationModel: 'openai:m' }), 'x', signal),
    ).resolves.toEqual({ inputTokens: 12, outputTokens: 1 });
  });
});

describe('OutputWatch', () => {
  /** Streams `deltas` through the watch; the index of the delta it stops at, or null. */
  const stopsAt = (watch: OutputWatch, deltas: string[]) => {
    for (const [index, delta] of deltas.entries()) if ('blocked' in watch.push(delta)) return index;
    return null;
  };

  /** Streams `deltas` through a watch that lets them all through: what goes out with each, then at the end. */
  const sent = (settings: GuardrailSettings, deltas: string[]) => {
    const watch = new OutputWatch(settings);
    const out = deltas.map((delta) => {
      const watched = watch.push(delta);
      if ('blocked' in watched) throw new Error('blocked');
      return watched.text;
    });
    return [...out, watch.end().text];
  };

  it('stops at the delta that completes a blocked term split across deltas', () => {
    const watch = new OutputWatch(settings({ blockedTerms: ['swordfish'] }));
    expect(stopsAt(watch, ['The password ', 'is sword', 'FISH', ' indeed'])).toBe(2);
    expect(
      stopsAt(new OutputWatch(settings({ blockedTerms: ['swordfish'] })), ['a sword ', 'and a fish']),
    ).toBeNull();
  });

  it('stops at PII only under pii block', () => {
    const deltas = ['write to ', 'jane@', 'example.com', ' today'];
    expect(stopsAt(new OutputWatch(settings({ pii: 'block' })), deltas)).toBe(2);
    expect(stopsAt(new OutputWatch(settings({ pii: 'redact' })), deltas)).toBeNull();
  });

  it('passes every delta on unchanged without pii redact', () => {
    const deltas = ['write to ', 'jane@', 'example.com', ' today'];
    expect(sent(settings({ pii: 'off' }), deltas)).toEqual([...deltas, '']);
  });

  it('redacts PII split across deltas: no delta carries a piece of it', () => {
    const out = sent(settings({ pii: 'redact' }), [
      'write to ',
      'jane',
      '.doe@',
      'example',
      '.com',
      ' today',
    ]);
    expect(out.join('')).toBe('write to [EMAIL] today');
    for (const piece of out) expect(piece).not.toMatch(/jane|doe|example/);
  });

  it('holds a number while more digits may follow, and redacts a card written in groups', () => {
    const out = sent(settings({ pii: 'redact' }), ['card ', '4111 ', '1111 ', '1111 ', '1111', ', thanks']);
    expect(out.join('')).toBe('card [CARD], thanks');
    expect(out.slice(0, 5).join('')).toBe('card ');
    // A card number followed by a word the last-word rule holds is not cut in two.
    expect(sent(settings({ pii: 'redact' }), ['4111 1111 1111 1111.x', ' and more']).join('')).toBe(
      '[CARD].x and more',
    );
  });

  it('redacts an IBAN and a phone number, and leaves a Luhn-invalid number and plain text alone', () => {
    const out = sent(settings({ pii: 'redact' }), [
      'IBAN DE89 ',
      '3704 0044 0532 ',
      '0130 00, call +49 ',
      '30 1234567. Not a card: 4111 1111 1111 1112.',
    ]);
    expect(out.join('')).toBe('IBAN [IBAN], call [PHONE]. Not a card: 4111 1111 1111 1112.');
    expect(sent(settings({ pii: 'redact' }), ['Hello ', 'there, ', 'friend.'])).toEqual([
      'Hello ',
      'there, ',
      '',
      'friend.',
    ]);
  });

  it('holds at most a bounded tail, so a long run of digits still streams', () => {
    const watch = new OutputWatch(settings({ pii: 'redact' }));
    // Digits and separators only, never a finding: the run of digits a number could still grow from never ends.
    const pieces = Array.from({ length: 200 }, (_, index) => `${index % 10}. `);
    const out = pieces.map((piece) => {
      const watched = watch.push(piece);
      return 'text' in watched ? watched.text : '';
    });
    expect(out.join('').length).toBeGreaterThanOrEqual(pieces.join('').length - 256);
    expect(out.join('') + watch.end().text).toBe(pieces.join(''));
  });
});

describe('guardedHistory', () => {
  const history = [
    Object.assign(new MessageEntity(), { role: 'user', content: 'I am a@b.io' }),
    Object.assign(new MessageEntity(), { role: 'assistant', content: 'Hello a@b.io' }),
  ];

  it('redacts every user message under redact, never the stored rows', () => {
    expect(guardedHistory(history, settings({ pii: 'redact' })).map((m) => m.content)).toEqual([
      'I am [EMAIL]',
      'Hello a@b.io',
    ]);
    expect(history[0].content).toBe('I am a@b.io');
    expect(guardedHistory(history, settings({ pii: 'block' }))).toBe(history);
  });
});
