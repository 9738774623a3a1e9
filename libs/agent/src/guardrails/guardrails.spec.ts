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
    let text = '';
    for (const [index, delta] of deltas.entries()) {
      text += delta;
      if (watch.check(text, delta.length)) return index;
    }
    return null;
  };

  it('stops at the delta that completes a blocked term split across deltas', () => {
    const watch = new OutputWatch(settings({ blockedTerms: ['swordfish'] }));
    expect(stopsAt(watch, ['The password ', 'is sword', 'FISH', ' indeed'])).toBe(2);
    expect(stopsAt(watch, ['a sword ', 'and a fish'])).toBeNull();
  });

  it('stops at PII only under pii block', () => {
    const deltas = ['write to ', 'jane@', 'example.com', ' today'];
    expect(stopsAt(new OutputWatch(settings({ pii: 'block' })), deltas)).toBe(2);
    expect(stopsAt(new OutputWatch(settings({ pii: 'redact' })), deltas)).toBeNull();
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
