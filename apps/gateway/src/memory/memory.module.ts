import { Module } from '@nestjs/common';
import { MemoryFilesModule } from '@app/memory';
import { MemoryController } from './memory.controller';

@Module({
  imports: [MemoryFilesModule],
  controllers: [MemoryController],
})
export class MemoryModule {}
