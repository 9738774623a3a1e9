import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'parley:public';

/** A route that needs no service token (health, metrics, docs, public share links). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
