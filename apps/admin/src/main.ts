import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { DomainError, InvalidInputError } from '@app/contracts';
import { loadSettingsOrExit } from '@app/config';
import { AdminModule } from './admin.module';
import { BarNotMet, commandHelp, COMMANDS, parseFlags, topLevelHelp, UsageError } from './commands';

/** `npm run --silent admin -- <command> [flags]`: one JSON object on stdout, or a message on stderr and exit 1. */
async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${topLevelHelp()}\n`);
    return 0;
  }
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    // Say what was wrong before the list of what is right.
    const problem = name ? `unknown command: ${name}` : 'no command given';
    process.stderr.write(`${problem}\n\n${topLevelHelp()}\n`);
    return 1;
  }
  let parsed;
  try {
    parsed = parseFlags(command, args);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
  if (parsed.help) {
    process.stdout.write(`${commandHelp(name, command)}\n`);
    return 0;
  }
  const settings = loadSettingsOrExit();
  const app = await NestFactory.createApplicationContext(AdminModule.forRoot(settings), {
    logger: ['error'],
  });
  try {
    const result = await command.run(app, parsed.flags);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    // A gate that failed still prints what it measured, for the pipeline's log.
    if (error instanceof BarNotMet) process.stdout.write(`${JSON.stringify(error.result)}\n`);
    const message =
      error instanceof InvalidInputError
        ? error.issues
            .map((issue) => `${cliLoc(issue.loc)}: ${issue.msg}${shownInput(issue.input)}`)
            .join('\n')
        : error instanceof DomainError || error instanceof UsageError || error instanceof BarNotMet
          ? error.message
          : `failed: ${(error as Error).message}`;
    process.stderr.write(`${message}\n`);
    return 1;
  } finally {
    await app.close();
  }
}

/** A field as the CLI user named it: `body.token_budget` is the flag `--token-budget`. */
function cliLoc(loc: (string | number)[]): string {
  if (loc[0] !== 'body' || typeof loc[1] !== 'string') return loc.join('.');
  return [`--${loc[1].replace(/_/g, '-')}`, ...loc.slice(2)].join('.');
}

/** The offending value when it is a short string (a tool or model name), so the message says which. */
function shownInput(input: unknown): string {
  return typeof input === 'string' && input.length <= 100 ? ` (got ${JSON.stringify(input)})` : '';
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`failed: ${error.message}\n`);
    process.exit(1);
  },
);
