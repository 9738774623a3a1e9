import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Db, ErasureCounts, ErasureRepository, StoredFileRef } from '@app/persistence';
import { StorageDriver } from '@app/storage';
import { ReplyTraces } from './reply-traces';

/** Messages deleted per transaction: a thread of any length is removed in short transactions. */
const MESSAGE_BATCH = 500;

/** Adds one batch's counts up; `into` keeps the sum of every batch. */
export function addUp(into: ErasureCounts, counts: ErasureCounts): void {
  for (const [kind, n] of Object.entries(counts)) if (n > 0) into[kind] = (into[kind] ?? 0) + n;
}

/**
 * Deletes threads for good, for an end user's erasure and for retention alike: the files their messages hold
 * (eraseFiles), then their messages newest first with what Redis holds of their replies (ReplyTraces), then the
 * threads; each step its own short transaction, so no lock is held for long and a run stopped anywhere can run
 * again from the start and find only what is left. With an erasure id, each transaction adds its counts to that
 * receipt. The caller has stopped the threads' replies first.
 */
@Injectable()
export class EraseThreads {
  constructor(
    private readonly db: DataSource,
    private readonly erasures: ErasureRepository,
    private readonly storage: StorageDriver,
    private readonly traces: ReplyTraces,
  ) {}

  async execute(orgId: string, threadIds: string[], erasureId: string | null): Promise<ErasureCounts> {
    const total: ErasureCounts = {};
    addUp(total, await this.eraseFiles(orgId, await this.erasures.threadFiles(orgId, threadIds), erasureId));
    for (;;) {
      const messageIds = await this.erasures.messageBatch(threadIds, MESSAGE_BATCH);
      if (messageIds.length === 0) break;
      const replies = await this.erasures.repliesOf(messageIds);
      // Before the rows (a resumed erasure no longer finds the ids of rows already gone), and after them: a run
      // that claimed a log in between wrote it again, and any claim later finds its reply gone.
      await this.traces.forgetLogs(replies.map((reply) => reply.id));
      addUp(
        total,
        await this.inTransaction(erasureId, (tx) => this.erasures.deleteMessages(tx, orgId, messageIds)),
      );
      await this.traces.forget(replies);
    }
    addUp(
      total,
      await this.inTransaction(erasureId, (tx) => this.erasures.deleteThreads(tx, orgId, threadIds)),
    );
    return total;
  }

  /**
   * Deletes files: their bytes, their rows (and share links), then their bytes again. The storage host takes an
   * upload permission's bytes only while the file's row exists and checks it again once they are stored
   * (FileRows), so bytes that landed between the first delete and the rows' are removed by the second, and any
   * later ones by the host itself.
   */
  async eraseFiles(orgId: string, files: StoredFileRef[], erasureId: string | null): Promise<ErasureCounts> {
    if (files.length === 0) return {};
    const deleteBytes = () => Promise.all(files.map((file) => this.storage.delete(file.storageKey)));
    await deleteBytes();
    const counts = await this.inTransaction(erasureId, (tx) =>
      this.erasures.deleteFiles(
        tx,
        orgId,
        files.map((file) => file.id),
      ),
    );
    await deleteBytes();
    return counts;
  }

  /** One batch's deletes and, for an erasure, its counts on the receipt: committed together. */
  async inTransaction(
    erasureId: string | null,
    work: (tx: Db) => Promise<ErasureCounts>,
  ): Promise<ErasureCounts> {
    return this.db.transaction(async (tx) => {
      const counts = await work(tx);
      if (erasureId) await this.erasures.addCounts(tx, erasureId, counts);
      return counts;
    });
  }
}
