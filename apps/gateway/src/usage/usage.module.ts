import { Module } from '@nestjs/common';
import { GetUsage } from './get-usage.use-case';
import { UsageController } from './usage.controller';

/** GET /usage. */
@Module({
  controllers: [UsageController],
  providers: [GetUsage],
})
export class UsageModule {}
