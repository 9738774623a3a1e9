import { MigrationInterface, QueryRunner } from 'typeorm';

/** Query templates and skills (API-SPEC 2.10, 2.11). */
export class TemplatesAndSkills1763900000000 implements MigrationInterface {
  name = 'TemplatesAndSkills1763900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE query_templates (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        created_by text NOT NULL,
        updated_by text NOT NULL,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        content text NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        icon_uri text NOT NULL DEFAULT '',
        icon_color text NOT NULL DEFAULT '',
        background_color text NOT NULL DEFAULT '',
        scope text NOT NULL DEFAULT 'private' CHECK (scope IN ('private', 'organization')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX query_templates_listing_idx ON query_templates (org_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(`
      CREATE TABLE skills (
        id text PRIMARY KEY,
        org_id uuid REFERENCES organizations(id) ON DELETE CASCADE,
        source text NOT NULL CHECK (source IN ('parley', 'custom')),
        name text NOT NULL,
        display_name text NOT NULL,
        frontmatter jsonb NOT NULL,
        body text NOT NULL,
        document text NOT NULL,
        active boolean NOT NULL DEFAULT true,
        scope text CHECK (scope IN ('organization', 'private')),
        created_by text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((source = 'parley') = (org_id IS NULL))
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX skills_custom_name_idx ON skills (org_id, name) WHERE org_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX skills_platform_name_idx ON skills (name) WHERE org_id IS NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE skill_settings (
        org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        skill_id text NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
        active boolean,
        scope text CHECK (scope IN ('organization', 'private')),
        set_by text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org_id, skill_id)
      )`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE skill_settings`);
    await queryRunner.query(`DROP TABLE skills`);
    await queryRunner.query(`DROP TABLE query_templates`);
  }
}
