import { ApiProperty } from '@nestjs/swagger';
import { DATE_TIME, FREE_FORM } from './message.response';

/** API-SPEC 2.10: every field present. */
export class QueryTemplateResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ description: 'The end user (user_id) who created it.' })
  created_by: string;
  @ApiProperty()
  organization_id: string;
  @ApiProperty({ example: 'Weekly summary' })
  name: string;
  @ApiProperty()
  description: string;
  @ApiProperty({ example: 'Summarize this week in five bullet points.' })
  content: string;
  @ApiProperty(FREE_FORM)
  metadata: Record<string, unknown>;
  @ApiProperty()
  icon_uri: string;
  @ApiProperty()
  icon_color: string;
  @ApiProperty()
  background_color: string;
  @ApiProperty({ enum: ['private', 'organization'] })
  scope: 'private' | 'organization';
  @ApiProperty(DATE_TIME)
  created_at: string;
  @ApiProperty(DATE_TIME)
  updated_at: string;
  @ApiProperty({ description: 'The end user (user_id) who changed it last.' })
  updated_by: string;
}

interface QueryTemplateRecord {
  id: string;
  orgId: string;
  createdBy: string;
  updatedBy: string;
  name: string;
  description: string;
  content: string;
  metadata: Record<string, unknown>;
  iconUri: string;
  iconColor: string;
  backgroundColor: string;
  scope: 'private' | 'organization';
  createdAt: Date;
  updatedAt: Date;
}

export function toQueryTemplateResponse(template: QueryTemplateRecord): QueryTemplateResponse {
  return {
    id: template.id,
    created_by: template.createdBy,
    organization_id: template.orgId,
    name: template.name,
    description: template.description,
    content: template.content,
    metadata: template.metadata,
    icon_uri: template.iconUri,
    icon_color: template.iconColor,
    background_color: template.backgroundColor,
    scope: template.scope,
    created_at: template.createdAt.toISOString(),
    updated_at: template.updatedAt.toISOString(),
    updated_by: template.updatedBy,
  };
}
