import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { DomainError, InvalidInputError } from '@app/contracts';
import { loadSettingsOrExit } from '@app/config';
import { AdminModule } from './admin.module';
import { COMMANDS, parseFlags } from './commands';

/** `npm run --silent admin -- <command> [flags]`: one JSON object on stdout, or a message on stderr and exit 1. */
async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`usage: admin <${Object.keys(COMMANDS).join('|')}> [--flag value ...]\n`);
    return 1;
  }
  const settings = loadSettingsOrExit();
  let flags;
  try {
    flags = parseFlags(args);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
  const app = await NestFactory.createApplicationContext(AdminModule.forRoot(settings), {
    logger: ['error'],
  });
  try {
    const result = await command(app, flags);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    const message =
      error instanceof InvalidInputError
        ? error.issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('\n')
        : error instanceof DomainError
          ? error.message
          : `failed: ${(error as Error).message}`;
    process.stderr.write(`${message}\n`);
    return 1;
  } finally {
    await app.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`failed: ${error.message}\n`);
    process.exit(1);
  },
);
