import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The lines of a reply's step in progress, stored before they are published (store, then publish): a step's
 * own row is written when its model call ends, which for a real model is seconds after its first words are
 * streamed. One row per batch of lines (`lines`: JSON lines joined by newlines), removed when the reply ends.
 */
export class RunStreamJournal1766100100000 implements MigrationInterface {
  name = 'RunStreamJournal1766100100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE run_stream_journal (
        message_id uuid NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        first_seq integer NOT NULL,
        lines text NOT NULL,
        PRIMARY KEY (message_id, first_seq)
      )`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE run_stream_journal`);
  }
}
