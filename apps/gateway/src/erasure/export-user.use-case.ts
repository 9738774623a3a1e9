import { Injectable } from '@nestjs/common';
import {
  toConnectionResponse,
  toMemoryFileResponse,
  toMessageResponse,
  toRoutineResponse,
  toThreadSummaryResponse,
} from '@app/contracts';
import { FileAttachments } from '@app/files';
import { Caller } from '@app/identity';
import { FeedbackRepository, UserBudgetRepository, UserExportRepository } from '@app/persistence';
import { toUserBudgetResponse } from '../budgets/user-budgets.use-case';
import { toFeedbackResponse } from '../feedback/feedback.use-cases';

/** Rows read per query: the export holds one page at a time, whatever the user's size. */
const PAGE = 200;

/** One line of the export. */
export interface ExportLine {
  kind: 'thread' | 'message' | 'file' | 'memory_file' | 'routine' | 'feedback' | 'budget' | 'connection';
  data: unknown;
}

/**
 * GET /users/{user_id}/export (CONTRACTS §20): everything of the end user in the key's organization, one object a
 * line, in the shapes the API answers: each thread (archived ones too) followed by its messages, then files (with
 * a signed download URL and their share links), memory files (CONTRACTS §21), routines, feedback, the budget and
 * connections. Read page by page, so the response streams at any size; an unknown user is an empty export.
 */
@Injectable()
export class ExportUser {
  constructor(
    private readonly data: UserExportRepository,
    private readonly attachments: FileAttachments,
    private readonly feedback: FeedbackRepository,
    private readonly budgets: UserBudgetRepository,
  ) {}

  async *execute(caller: Caller, userId: string): AsyncGenerator<ExportLine> {
    const orgId = caller.orgId;
    const agents = await this.data.agentsOf(orgId);
    const agentById = new Map(agents.map((agent) => [agent.id, agent]));
    for (let after: string | null = null; ;) {
      const threads = await this.data.exportThreads(orgId, userId, after, PAGE);
      for (const thread of threads) {
        const agent = agentById.get(thread.agentId);
        yield {
          kind: 'thread',
          data: {
            ...toThreadSummaryResponse(thread, false, agent ?? { id: thread.agentId, name: '' }),
            archived: thread.archivedAt !== null,
          },
        };
        for (let position = -1; ;) {
          const messages = await this.data.exportMessages(orgId, thread.id, position, PAGE);
          for (const message of messages) {
            yield {
              kind: 'message',
              data: toMessageResponse(message, message.agentId ? agentById.get(message.agentId) : null),
            };
          }
          if (messages.length < PAGE) break;
          position = messages[messages.length - 1].position;
        }
      }
      if (threads.length < PAGE) break;
      after = threads[threads.length - 1].id;
    }
    for (let after: string | null = null; ;) {
      const files = await this.data.exportFiles(orgId, userId, after, PAGE);
      for (const file of await this.attachments.toResponses({ orgId }, files))
        yield { kind: 'file', data: file };
      if (files.length < PAGE) break;
      after = files[files.length - 1].id;
    }
    for (let after: string | null = null; ;) {
      const files = await this.data.exportMemoryFiles(orgId, userId, after, PAGE);
      for (const file of files) yield { kind: 'memory_file', data: toMemoryFileResponse(file) };
      if (files.length < PAGE) break;
      after = files[files.length - 1].id;
    }
    for (const routine of await this.data.exportRoutines(orgId, userId)) {
      yield { kind: 'routine', data: toRoutineResponse(routine) };
    }
    for (let after: string | null = null; ;) {
      const page = await this.feedback.listOfUser(orgId, userId, after, PAGE);
      for (const feedback of page) yield { kind: 'feedback', data: toFeedbackResponse(feedback) };
      if (page.length < PAGE) break;
      after = page[page.length - 1].messageId;
    }
    const budget = await this.budgets.find(orgId, userId);
    if (budget) yield { kind: 'budget', data: toUserBudgetResponse(budget) };
    for (const connection of await this.data.exportConnections(orgId, userId)) {
      yield { kind: 'connection', data: toConnectionResponse(connection) };
    }
  }
}
