import { Injectable } from '@nestjs/common';
import { AgentTool, RunScope, ToolCallContext, ToolError, ToolSource } from '@app/agent';
import {
  MEMORY_CONTENT_MAX_CHARS,
  MEMORY_FOLDER_PATTERN,
  MEMORY_PURPOSE_MAX_CHARS,
  MemoryFileResponse,
  memoryPathProblem,
  NotFoundError,
  VersionConflictError,
} from '@app/contracts';
import { MemoryCaller } from '../memory-caller';
import { ListMemoryFiles } from '../use-cases/list-memory-files.use-case';
import { ReadMemoryFile } from '../use-cases/read-memory-file.use-case';
import { WriteMemoryFile } from '../use-cases/write-memory-file.use-case';

/** Attempts of memory_write when another run writes the same file between our read and our write. */
export const MEMORY_WRITE_ATTEMPTS = 5;

const PATH_HELP = 'A path is "name" or "folder/name" (one folder at most), e.g. "notes/customer.md".';

/**
 * The memory tools of a run bound to a namespace (spec 4.2 rules 1-3, CONTRACTS §7): they read and write only
 * that namespace of the run's organization. A run without a namespace gets none.
 */
@Injectable()
export class MemoryToolSource implements ToolSource {
  readonly permission = 'memory';

  constructor(
    private readonly listFiles: ListMemoryFiles,
    private readonly readFile: ReadMemoryFile,
    private readonly writeFile: WriteMemoryFile,
  ) {}

  toolsFor(scope: RunScope): AgentTool[] {
    if (scope.memoryNamespace === null) return [];
    return [this.memoryList(), this.memoryRead(), this.memoryWrite()];
  }

  private memoryList(): AgentTool {
    return {
      name: 'memory_list',
      permission: 'memory',
      readOnly: true,
      description:
        'Lists the long-term memory files (path, purpose, last update), of one folder when `folder` is given.',
      parameters: {
        type: 'object',
        properties: { folder: { type: 'string', description: 'Only the files of this folder.' } },
        additionalProperties: false,
      },
      execute: async (args, context) => {
        const folder = optionalString(args, 'folder');
        if (folder !== undefined && !MEMORY_FOLDER_PATTERN.test(folder)) {
          throw new ToolError('folder must be one folder name, without "/", "\\", "." or ".."');
        }
        const files = await this.listFiles.execute(callerOf(context), {
          namespace: namespaceOf(context),
          folder: folder ?? null,
        });
        return {
          files: files.map((file) => ({
            path: file.path,
            purpose: file.purpose,
            updated_at: file.updated_at,
          })),
        };
      },
    };
  }

  private memoryRead(): AgentTool {
    return {
      name: 'memory_read',
      permission: 'memory',
      readOnly: true,
      description: `Reads one long-term memory file. ${PATH_HELP}`,
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
        additionalProperties: false,
      },
      execute: async (args, context) => {
        const path = validPath(args);
        const file = await this.find(callerOf(context), namespaceOf(context), path);
        if (!file) throw new ToolError(`No memory file at "${path}"`);
        return { path: file.path, purpose: file.purpose, content: file.content, updated_at: file.updated_at };
      },
    };
  }

  private memoryWrite(): AgentTool {
    return {
      name: 'memory_write',
      permission: 'memory',
      description: `Creates or replaces a long-term memory file with this content. ${PATH_HELP}`,
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          content: { type: 'string', description: 'The whole new content of the file.' },
          purpose: { type: 'string', description: 'Why the file exists, in a few words.' },
        },
        required: ['path', 'content', 'purpose'],
        additionalProperties: false,
      },
      execute: async (args, context) => {
        const path = validPath(args);
        const content = requiredString(args, 'content');
        const purpose = requiredString(args, 'purpose');
        if (Array.from(content).length > MEMORY_CONTENT_MAX_CHARS) {
          throw new ToolError(`content is longer than ${MEMORY_CONTENT_MAX_CHARS} characters`);
        }
        if (Array.from(purpose).length > MEMORY_PURPOSE_MAX_CHARS) {
          throw new ToolError(`purpose is longer than ${MEMORY_PURPOSE_MAX_CHARS} characters`);
        }
        // The file remembers whose run wrote it, so erasing or exporting that end user finds it (CONTRACTS §21).
        const written = await this.write(callerOf(context), namespaceOf(context), {
          path,
          content,
          purpose,
          writtenByUserId: context.userId,
        });
        return { path: written.path, version: written.version };
      },
    };
  }

  /**
   * Reads the current version and writes on it; when another writer got in between (409, or the file was
   * deleted or created meanwhile), starts over. Each write is conditional on the version just read, so no
   * concurrent update is ever lost unseen; after MEMORY_WRITE_ATTEMPTS lost races the model gets an error.
   */
  private async write(
    caller: MemoryCaller,
    namespace: string,
    file: { path: string; content: string; purpose: string; writtenByUserId: string | null },
  ): Promise<MemoryFileResponse> {
    for (let attempt = 1; attempt <= MEMORY_WRITE_ATTEMPTS; attempt++) {
      const current = await this.find(caller, namespace, file.path);
      try {
        return await this.writeFile.execute(caller, {
          namespace,
          ...file,
          version: current?.version ?? null,
        });
      } catch (error) {
        if (!(error instanceof VersionConflictError || error instanceof NotFoundError)) throw error;
      }
    }
    throw new ToolError(
      `memory file "${file.path}" kept changing under other writers; nothing was written, try again`,
    );
  }

  private async find(
    caller: MemoryCaller,
    namespace: string,
    path: string,
  ): Promise<MemoryFileResponse | null> {
    try {
      return await this.readFile.execute(caller, { namespace, path });
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }
}

const callerOf = (context: ToolCallContext): MemoryCaller => ({ orgId: context.orgId });

function namespaceOf(context: ToolCallContext): string {
  if (context.memoryNamespace === null) throw new ToolError('memory is not available in this thread');
  return context.memoryNamespace;
}

function validPath(args: Record<string, unknown>): string {
  const path = requiredString(args, 'path');
  const problem = memoryPathProblem(path);
  if (problem) throw new ToolError(`${problem}. ${PATH_HELP}`);
  return path;
}

function requiredString(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  if (typeof value !== 'string') throw new ToolError(`${name} must be a string`);
  return value;
}

function optionalString(args: Record<string, unknown>, name: string): string | undefined {
  return args[name] === undefined || args[name] === null ? undefined : requiredString(args, name);
}
