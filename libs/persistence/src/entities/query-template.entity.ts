import { Entity } from 'typeorm';
import { CreatedAtColumn, IdColumn, JsonbColumn, OrgIdColumn, TextColumn, UpdatedAtColumn } from './columns';

type TemplateScope = 'private' | 'organization';

@Entity('query_templates')
export class QueryTemplateEntity {
  @IdColumn()
  id: string;

  @OrgIdColumn()
  orgId: string;

  /** End user who made it; a private template is visible to this user only. */
  @TextColumn({ name: 'created_by' })
  createdBy: string;

  @TextColumn({ name: 'updated_by' })
  updatedBy: string;

  @TextColumn()
  name: string;

  @TextColumn({ default: '' })
  description: string;

  @TextColumn()
  content: string;

  @JsonbColumn({ default: {} })
  metadata: Record<string, unknown>;

  @TextColumn({ name: 'icon_uri', default: '' })
  iconUri: string;

  @TextColumn({ name: 'icon_color', default: '' })
  iconColor: string;

  @TextColumn({ name: 'background_color', default: '' })
  backgroundColor: string;

  @TextColumn({ default: 'private' })
  scope: TemplateScope;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
