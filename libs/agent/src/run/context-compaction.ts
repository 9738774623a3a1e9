import { Injectable, Logger } from '@nestjs/common';
import { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { Settings } from '@app/config';
import { DEFAULT_KEEP_RECENT_MESSAGES } from '@app/contracts';
import { MessageEntity, ThreadSummaryRepository } from '@app/persistence';
import { estimateTokens } from '../conversation';
import { SUMMARY_TASK } from '../models/builtin.model';
import { ModelProvider } from '../models/model-provider';
import { describeError, ReplyRun } from './run.types';
import { isRunOverBudget } from './token-budget';
import { UserBudgetTurn } from './user-budget-turn';

/** A summary that takes longer is given up: the run goes on with the budget cut. */
const SUMMARY_TIMEOUT_MS = 60_000;

const SUMMARY_INSTRUCTIONS =
  'Summarize the conversation below for whoever continues it. Keep every fact, name, number, decision, ' +
  'preference and open question; drop greetings and repetition. Write plain sentences, no preamble.';

/** What a run's model is given of its thread: the latest summary, if any, and the messages after it. */
interface RunHistory {
  summary: string | null;
  messages: MessageEntity[];
  /** Tokens the reply's own run spent writing the summary: they count against its budgets like a step's. */
  summaryUsageTokens: number;
}

/** What compaction reads of a run: it comes before the run's attachments and summary are known. */
export type CompactionInput = Pick<ReplyRun, 'reply' | 'thread' | 'agent' | 'context' | 'state' | 'signal'>;

/**
 * Long threads (CONTRACTS §19). A run's view of its thread is the latest summary and the messages after it;
 * when that view is over the agent's threshold (or the thread asked for a summary, POST /chat/{id}/compact), the
 * run first summarizes all but the recent messages with the agent's own model, stores the summary with the
 * thread (nothing is deleted) and writes `context.compacted`. A summary that fails never breaks the thread: the
 * run goes on with the view it had (the context budget's cut, buildPrompt, applies) and the next run tries again.
 */
@Injectable()
export class ContextCompaction {
  private readonly logger = new Logger(ContextCompaction.name);

  constructor(
    private readonly models: ModelProvider,
    private readonly summaries: ThreadSummaryRepository,
    private readonly settings: Settings,
    private readonly userBudgetTurn: UserBudgetTurn,
  ) {}

  async prepare(run: CompactionInput): Promise<RunHistory> {
    const { context, agent, thread, reply } = run;
    const view = viewOf(context.history, context.summary, reply.id);
    // A resumed run keeps the view its stored steps were made with: the summary it wrote, if any, is the latest.
    if (context.steps.length > 0 || isRunOverBudget(context.gate, 0)) return view;
    const threshold = agent.compaction?.thresholdTokens ?? this.settings.compactionThresholdTokens;
    const requested = thread.compactionRequestedAt !== null;
    if (!requested && (threshold === 0 || historyTokens(view) <= threshold)) return view;

    const keep = agent.compaction?.keepRecentMessages ?? DEFAULT_KEEP_RECENT_MESSAGES;
    // The reply's own question is always kept word for word.
    const older = view.messages.slice(0, Math.max(0, view.messages.length - Math.max(keep, 1)));
    if (older.length === 0) {
      if (requested) await this.summaries.dropRequest(thread.id);
      return view;
    }
    // A summary is a model call the end user pays for: it waits for their spending turn like a step, and is not
    // written when what the user's other replies spent meanwhile used the budget up.
    const budgeted = context.gate.userBudget !== null;
    if (budgeted) {
      const gate = await this.userBudgetTurn.take(run, { threadId: thread.id, agentId: agent.id });
      if (run.signal.aborted || gate.archived || isRunOverBudget(gate, 0)) {
        await this.userBudgetTurn.giveBack(reply.id);
        return view;
      }
    }
    let written: { summary: string; summaryTokens: number; inputTokens: number };
    try {
      written = await this.summarize(run, view.summary, older);
    } catch (error) {
      if (budgeted) await this.userBudgetTurn.giveBack(reply.id);
      if (!run.signal.aborted)
        this.logger.warn(
          { messageId: reply.id, threadId: thread.id, reason: describeError(error) },
          'thread summary failed: the run goes on with the context budget, the next run tries again',
        );
      return view;
    }
    const summarizedMessages = (context.summary?.summarizedMessages ?? 0) + older.length;
    const turnHandedTo = await this.summaries.save({
      threadId: thread.id,
      messageId: reply.id,
      throughPosition: older[older.length - 1].position,
      throughMessageId: older[older.length - 1].id,
      summarizedMessages,
      summary: written.summary,
      summaryTokens: written.summaryTokens,
      inputTokens: written.inputTokens,
      outputTokens: written.summaryTokens,
    });
    await this.userBudgetTurn.wake(turnHandedTo);
    run.state.emitOnce({
      type: 'context.compacted',
      summarized_messages: summarizedMessages,
      summary_tokens: written.summaryTokens,
    });
    // PostgreSQL holds the summary: the line may go out.
    run.state.stored();
    return {
      summary: written.summary,
      messages: view.messages.slice(older.length),
      summaryUsageTokens: written.inputTokens + written.summaryTokens,
    };
  }

  private async summarize(
    run: CompactionInput,
    earlier: string | null,
    messages: MessageEntity[],
  ): Promise<{ summary: string; summaryTokens: number; inputTokens: number }> {
    const entries = messages.filter((m) => m.content).map((m) => `${m.role}: ${m.content}`);
    if (earlier) entries.unshift(`Summary of the conversation before: ${earlier}`);
    const prompt: LanguageModelV3Prompt = [
      { role: 'system', content: SUMMARY_INSTRUCTIONS },
      { role: 'user', content: [{ type: 'text', text: entries.join('\n\n') }] },
    ];
    const result = await this.models.languageModel(run.agent.model).doGenerate({
      prompt,
      abortSignal: AbortSignal.any([run.signal, AbortSignal.timeout(SUMMARY_TIMEOUT_MS)]),
      providerOptions: { parley: { task: SUMMARY_TASK } },
    });
    const summary = result.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('')
      .trim();
    if (!summary) throw new Error('the model wrote an empty summary');
    const outputTokens = result.usage.outputTokens.total ?? estimateTokens(summary);
    return { summary, summaryTokens: outputTokens, inputTokens: result.usage.inputTokens.total ?? 0 };
  }
}

/** The latest summary and the messages after it. */
/** The run's view with the thread's latest summary; a run resumed after writing it still counts what it cost. */
function viewOf(
  history: MessageEntity[],
  summary: ReplyRun['context']['summary'],
  replyId: string,
): RunHistory {
  if (!summary) return { summary: null, messages: history, summaryUsageTokens: 0 };
  return {
    summary: summary.summary,
    messages: history.filter((message) => message.position > summary.throughPosition),
    summaryUsageTokens: summary.messageId === replyId ? summary.usageTokens : 0,
  };
}

function historyTokens(view: RunHistory): number {
  return (
    estimateTokens(view.summary ?? '') +
    view.messages.reduce((sum, message) => sum + estimateTokens(message.content), 0)
  );
}
