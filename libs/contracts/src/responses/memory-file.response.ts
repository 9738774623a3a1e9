/** Wire shape of a memory file (API-SPEC 2.8) and its listing item (CONTRACTS §7), with their mappers. */

export interface MemoryFileSummaryResponse {
  path: string;
  purpose: string;
  namespace: string;
  created_at: string;
  updated_at: string;
  version: string;
}

export interface MemoryFileResponse extends MemoryFileSummaryResponse {
  content: string;
}

/** The stored fields the mappers read (structurally a MemoryFileEntity). */
export interface MemoryFileRecord {
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
