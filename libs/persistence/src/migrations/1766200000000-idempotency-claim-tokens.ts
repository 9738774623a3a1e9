import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each claim of an Idempotency-Key gets a token: a route records its answer in its own transaction only while
 * the claim is still its own, so a request that outlived its lease, its key taken over, cannot store twice.
 */
export class IdempotencyClaimTokens1766200000000 implements MigrationInterface {
  name = 'IdempotencyClaimTokens1766200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys ADD COLUMN claim_token uuid`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys DROP COLUMN claim_token`);
  }
}
