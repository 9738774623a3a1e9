/**
 * Drops the stream journal of the reply closed in `closed` (its lines held for PostgreSQL while it ran): the row
 * holds them now, and nothing resumes an ended reply. Nothing when no reply was closed.
 */
export const dropStreamJournalSql = (closed: string): string =>
  `DELETE FROM run_stream_journal j USING ${closed} WHERE j.message_id = ${closed}.id`;
