import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { IntegerColumn, TextColumn, UuidColumn } from './columns';

/**
 * A piece of a document's text with its position, indexed for full-text search (`tsv`, GIN) and embedded
 * (`embedding`, L2-normalised real[]). Written and searched with SQL by libs/knowledge.
 */
@Entity('passages')
export class PassageEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @UuidColumn({ name: 'document_id' })
  documentId: string;

  @IntegerColumn({ name: 'source_id' })
  sourceId: number;

  /** 0-based order within the document. */
  @IntegerColumn()
  position: number;

  /** Character offsets of the passage in the document's extracted text. */
  @IntegerColumn({ name: 'start_offset' })
  startOffset: number;

  @IntegerColumn({ name: 'end_offset' })
  endOffset: number;

  @TextColumn()
  text: string;

  @TextColumn({ default: 'english' })
  language: string;

  @Column({ type: 'tsvector', select: false })
  tsv: string;

  @Column({ type: 'real', array: true, nullable: true, select: false })
  embedding: number[] | null;
}
