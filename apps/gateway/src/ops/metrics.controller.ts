import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { renderMetrics } from '@app/observability';
import { Public } from '../auth/public.decorator';

/** Prometheus scrape target: process figures and request durations; no token needed. */
@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  @Get()
  async metrics(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const { contentType, body } = await renderMetrics();
    void reply.header('content-type', contentType);
    return body;
  }
}
