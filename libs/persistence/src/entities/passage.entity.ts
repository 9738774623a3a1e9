import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A piece of a document's text with its position, indexed for full-text search (`tsv`, GIN) and embedded
 * (`embedding`, L2-normalised real[]). Written and searched with SQL by libs/knowledge.
 */
@Entity('passages')
export class PassageEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'document_id', type: 'uuid' })
  documentId: string;

  @Column({ name: 'source_id', type: 'integer' })
  sourceId: number;

  /** 0-based order within the document. */
  @Column({ type: 'integer' })
  position: number;

  /** Character offsets of the passage in the document's extracted text. */
  @Column({ name: 'start_offset', type: 'integer' })
  startOffset: number;

  @Column({ name: 'end_offset', type: 'integer' })
  endOffset: number;

  @Column({ type: 'text' })
  text: string;

  @Column({ type: 'text', default: 'english' })
  language: string;

  @Column({ type: 'tsvector', select: false })
  tsv: string;

  @Column({ type: 'real', array: true, nullable: true, select: false })
  embedding: number[] | null;
}
