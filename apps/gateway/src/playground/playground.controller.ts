import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth/public.decorator';

/** Where `npm run build` bundles the playground (apps/playground/build.mjs), beside the compiled apps. */
const BUNDLE = join(__dirname, '..', '..', '..', '..', 'playground');

/**
 * The browser playground at /playground (PLAYGROUND_ENABLED): one page and its script, bundled at build time.
 * Public like the docs; every call the page makes carries the key pasted into it.
 */
@ApiExcludeController()
@Public()
@Controller('playground')
export class PlaygroundController {
  private readonly page = readFileSync(join(BUNDLE, 'index.html'), 'utf8');
  private readonly script = readFileSync(join(BUNDLE, 'app.js'), 'utf8');
  private readonly icon = readFileSync(join(BUNDLE, 'favicon.svg'), 'utf8');

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  index(): string {
    return this.page;
  }

  @Get('app.js')
  @Header('content-type', 'text/javascript; charset=utf-8')
  @Header('cache-control', 'no-store')
  app(): string {
    return this.script;
  }

  @Get('favicon.svg')
  @Header('content-type', 'image/svg+xml')
  @Header('cache-control', 'public, max-age=86400')
  favicon(): string {
    return this.icon;
  }
}
