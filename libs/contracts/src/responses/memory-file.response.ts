/** Wire shape of a memory file (API-SPEC 2.8) and its listing item (CONTRACTS §7), with their mappers. */
import { ApiProperty } from '@nestjs/swagger';
import { DATE_TIME } from './message.response';

export class MemoryFileSummaryResponse {
  @ApiProperty({ description: 'Path as stored: name or folder/name.', example: 'people/alice.md' })
  path: string;
  @ApiProperty({ description: 'Why the file exists.' })
  purpose: string;
  @ApiProperty({ description: 'Namespace the file belongs to.', example: 'support-team' })
  namespace: string;
  @ApiProperty(DATE_TIME)
  created_at: string;
  @ApiProperty(DATE_TIME)
  updated_at: string;
  @ApiProperty({
    ...DATE_TIME,
    description: 'Opaque version identifier; echo it back as version when updating.',
  })
  version: string;
}

export class MemoryFileResponse extends MemoryFileSummaryResponse {
  @ApiProperty({ description: 'File body; may be empty.' })
  content: string;
}

/** The stored fields the mappers read (structurally a MemoryFileEntity). */
interface MemoryFileRecord {
  namespace: string;
  path: string;
  purpose: string;
  content?: string;
  createdAt: Date;
  updatedAt: Date;
  version: string;
}

/** A listing item: every field of 2.8 but `content`. */
export function toMemoryFileSummaryResponse(file: MemoryFileRecord): MemoryFileSummaryResponse {
  return {
    path: file.path,
    purpose: file.purpose,
    namespace: file.namespace,
    created_at: file.createdAt.toISOString(),
    updated_at: file.updatedAt.toISOString(),
    version: file.version,
  };
}

/** A memory file as spec 2.8 shows it: exactly these fields. */
export function toMemoryFileResponse(file: MemoryFileRecord & { content: string }): MemoryFileResponse {
  const { path, purpose, namespace, created_at, updated_at, version } = toMemoryFileSummaryResponse(file);
  return { path, purpose, namespace, created_at, updated_at, content: file.content, version };
}
