import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RunStepEntity } from '../entities';

/** What the reply stream reads of a finished run besides its message row. */
@Injectable()
export class StreamRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Each model call's text and where it ended in the reply's content, in step order: the runtime streamed a
   * step's text as the model cut it, so this is what rebuilds the deltas once the Redis log has expired.
   */
  stepTexts(messageId: string): Promise<{ text: string; contentLength: number }[]> {
    return this.db.getRepository(RunStepEntity).find({
      select: { text: true, contentLength: true },
      where: { messageId },
      order: { step: 'ASC' },
    });
  }
}
