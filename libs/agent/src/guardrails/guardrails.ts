import { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { Injectable } from '@nestjs/common';
import { GuardrailSettings, MessageEntity } from '@app/persistence';
import { GuardrailKind, GuardrailStage } from '@app/run-events';
import { ModelProvider } from '../models/model-provider';
import { pendingPiiStart, PiiKind, piiSpans, scanPii } from './pii';

/** One guardrail that fired: the `guardrail.triggered` line's fields (CONTRACTS §24). */
export interface GuardrailTrigger {
  stage: GuardrailStage;
  kind: GuardrailKind;
  action: 'redacted' | 'blocked';
}

/** The closing content of a blocked reply; the text the reply streamed before it is withdrawn. */
export const GUARDRAIL_BLOCKED_TEXT = 'A guardrail blocked this reply.';

/** Tokens the moderation model spent: counted with the reply like its steps' (CONTRACTS §21). */
export interface ModerationUsage {
  inputTokens: number;
  outputTokens: number;
}

export const NO_MODERATION_USAGE: ModerationUsage = { inputTokens: 0, outputTokens: 0 };

/** A guardrail stopped the reply (its output, or a moderation model that flagged or could not answer). */
export class GuardrailBlockedError extends Error {
  constructor(
    readonly trigger: GuardrailTrigger,
    readonly usage: ModerationUsage = NO_MODERATION_USAGE,
  ) {
    super(`guardrail ${trigger.kind} blocked the ${trigger.stage}`);
  }
}

/** What the input check decided: the lines to write, whether the reply may go on, what moderation spent. */
interface InputCheck {
  triggers: GuardrailTrigger[];
  blocked: boolean;
  usage: ModerationUsage;
}

/** A moderation model's verdict on a text, and what asking it cost. */
interface Verdict {
  allowed: boolean;
  usage: ModerationUsage;
}

const MODERATION_INSTRUCTIONS =
  'You are a content moderation classifier. Read the text the user sends and answer with exactly one word: ' +
  'FLAGGED if it is harmful, hateful, harassing, sexual involving minors, violent or self-harm content, or ' +
  'instructions for serious harm; otherwise OK.';
const FLAGGED = /\bFLAGGED\b/i;
/** Longest wait for a moderation verdict: a moderation model that does not answer in time blocks. */
const MODERATION_TIMEOUT_MS = 30_000;

/**
 * The history the model sees under `pii: "redact"`: every user message's PII replaced (the ones before the
 * latest too: their text is stored as the user wrote it). Other settings: the history as it is.
 */
export function guardedHistory(history: MessageEntity[], settings: GuardrailSettings): MessageEntity[] {
  if (settings.pii !== 'redact') return history;
  return history.map((message) =>
    message.role === 'user' ? { ...message, content: scanPii(message.content).redacted } : message,
  );
}

/** What the output watch makes of a model call's text so far: what may go out now, or the guardrail that stops it. */
type Watched = { blocked: GuardrailTrigger } | { text: string; redacted: PiiKind[] };

/**
 * Watches one model call's text as it streams (CONTRACTS §24): blocked terms and, under `pii: "block"`, PII stop
 * it; under `pii: "redact"`, the PII it writes is replaced before it goes out. To redact a stream, the end of the
 * text that a finding still being written may span (pendingPiiStart: the last word, a run of digits, an IBAN's
 * groups; at most HELD_MAX_CHARS) is held until more text shows what it is, so no delta ever carries a piece
 * of PII that the next one completes. Each check reads only the end of the text that a new delta can complete,
 * so a long reply costs no more per delta than a short one.
 */
export class OutputWatch {
  private readonly terms: string[];
  private readonly termWindow: number;
  /** The call's text as the model wrote it. */
  private written = '';
  /** Under redact: the end of the text not sent yet. */
  private held = '';

  constructor(private readonly settings: GuardrailSettings) {
    this.terms = settings.blockedTerms.map((term) => term.toLowerCase());
    this.termWindow = Math.max(0, ...this.terms.map((term) => term.length)) - 1;
  }

  /** The next delta of the call: the text that may go out now (maybe none), or the guardrail that stops it. */
  push(delta: string): Watched {
    this.written += delta;
    const trigger = this.check(delta.length);
    if (trigger) return { blocked: trigger };
    if (this.settings.pii !== 'redact') return { text: delta, redacted: [] };
    this.held += delta;
    const cut = releasableLength(this.held);
    const released = redacted(this.held.slice(0, cut));
    this.held = this.held.slice(cut);
    return released;
  }

  /** The call ended (or failed): what it still holds, redacted. */
  end(): { text: string; redacted: PiiKind[] } {
    const rest = redacted(this.held);
    this.held = '';
    return rest;
  }

  private check(deltaLength: number): GuardrailTrigger | null {
    const text = this.written;
    if (this.terms.length > 0) {
      const tail = text.slice(-(deltaLength + this.termWindow)).toLowerCase();
      if (this.terms.some((term) => tail.includes(term)))
        return { stage: 'output', kind: 'blocked_term', action: 'blocked' };
    }
    if (this.settings.pii === 'block') {
      // An e-mail address, an IBAN or a grouped card number is at most about 64 characters.
      const [kind] = scanPii(text.slice(-(deltaLength + PII_WINDOW))).kinds;
      if (kind) return { stage: 'output', kind, action: 'blocked' };
    }
    return null;
  }
}

const PII_WINDOW = 80;

/** A text with its PII replaced; text without a digit or an `@` holds none, and is not scanned. */
function redacted(text: string): { text: string; redacted: PiiKind[] } {
  if (!/[\d@]/.test(text)) return { text, redacted: [] };
  const scan = scanPii(text);
  return { text: scan.redacted, redacted: scan.kinds };
}
/**
 * Most text a redacting watch holds: past it the head goes out even when it could start a finding (a very long
 * run of digits, a long token), a finding it cuts going out whole, redacted.
 */
const HELD_MAX_CHARS = 256;

/**
 * How much of the held text may go out: everything before a finding still being written, never cutting a finding
 * the text already holds (a card number followed by a word the last-word rule holds, say): the cut moves to the
 * finding's start, or, when the held text outgrew its bound, to its end.
 */
function releasableLength(held: string): number {
  const pending = pendingPiiStart(held);
  const outgrown = pending < held.length - HELD_MAX_CHARS;
  let cut = outgrown ? held.length - HELD_MAX_CHARS : pending;
  // Nothing held back: no finding can cross the end of the text.
  if (cut === 0 || cut === held.length) return cut;
  const spans = piiSpans(held);
  for (let moved = true; moved;) {
    moved = false;
    for (const span of spans) {
      if (span.start < cut && cut < span.end) {
        cut = outgrown ? span.end : span.start;
        moved = true;
      }
    }
  }
  return cut;
}

/** The input side of an agent's guardrails and its moderation model (CONTRACTS §24). */
@Injectable()
export class Guardrails {
  constructor(private readonly models: ModelProvider) {}

  /**
   * The user's message before any model sees it: PII (each kind found is one trigger; `block` blocks), blocked
   * terms, then the moderation model, which blocks when it flags the message or cannot answer.
   */
  async checkInput(settings: GuardrailSettings, text: string, signal: AbortSignal): Promise<InputCheck> {
    const triggers: GuardrailTrigger[] = [];
    const usage = NO_MODERATION_USAGE;
    if (settings.pii !== 'off') {
      const action = settings.pii === 'block' ? 'blocked' : 'redacted';
      for (const kind of scanPii(text).kinds) triggers.push({ stage: 'input', kind, action });
      if (action === 'blocked' && triggers.length > 0) return { triggers, blocked: true, usage };
    }
    const lower = text.toLowerCase();
    if (settings.blockedTerms.some((term) => lower.includes(term.toLowerCase()))) {
      triggers.push({ stage: 'input', kind: 'blocked_term', action: 'blocked' });
      return { triggers, blocked: true, usage };
    }
    if (!settings.moderationModel) return { triggers, blocked: false, usage };
    const verdict = await this.moderate(settings.moderationModel, text, signal);
    if (!verdict.allowed) triggers.push({ stage: 'input', kind: 'moderation', action: 'blocked' });
    return { triggers, blocked: !verdict.allowed, usage: verdict.usage };
  }

  /**
   * The reply's text once its model call ended, for the moderation model: what asking cost, or a
   * GuardrailBlockedError (carrying the cost) when it flags the text or cannot answer.
   */
  async checkOutput(
    settings: GuardrailSettings,
    text: string,
    signal: AbortSignal,
  ): Promise<ModerationUsage> {
    if (!settings.moderationModel || !text) return NO_MODERATION_USAGE;
    const verdict = await this.moderate(settings.moderationModel, text, signal);
    if (!verdict.allowed)
      throw new GuardrailBlockedError(
        { stage: 'output', kind: 'moderation', action: 'blocked' },
        verdict.usage,
      );
    return verdict.usage;
  }

  /**
   * Whether the moderation model lets the text through: false when it flags it, and when it cannot answer (an
   * unknown model, a vendor down, a timeout): guardrails fail closed.
   */
  private async moderate(model: string, text: string, signal: AbortSignal): Promise<Verdict> {
    const prompt: LanguageModelV3Prompt = [
      { role: 'system', content: MODERATION_INSTRUCTIONS },
      { role: 'user', content: [{ type: 'text', text }] },
    ];
    try {
      const { stream } = await this.models.languageModel(model).doStream({
        prompt,
        abortSignal: AbortSignal.any([signal, AbortSignal.timeout(MODERATION_TIMEOUT_MS)]),
      });
      let answer = '';
      let usage = NO_MODERATION_USAGE;
      const reader = stream.getReader();
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        const part = next.value;
        if (part.type === 'text-delta') answer += part.delta;
        if (part.type === 'finish')
          usage = {
            inputTokens: part.usage.inputTokens.total ?? 0,
            outputTokens: part.usage.outputTokens.total ?? 0,
          };
        if (part.type === 'error') return { allowed: false, usage };
      }
      return { allowed: answer.trim() !== '' && !FLAGGED.test(answer), usage };
    } catch {
      return { allowed: false, usage: NO_MODERATION_USAGE };
    }
  }
}
