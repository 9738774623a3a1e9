import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { IntersectionType } from '@nestjs/mapped-types';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import { settingProblem } from './setting-problems';
import { ConnectionSettings } from './settings/connections.settings';
import { GatewaySettings } from './settings/gateway.settings';
import { ModelSettings } from './settings/models.settings';
import { RunSettings } from './settings/run.settings';
import { ServiceSettings } from './settings/service.settings';
import { SourceSettings } from './settings/sources.settings';
import { StorageSettings } from './settings/storage.settings';
import { ToolSettings } from './settings/tools.settings';
import { WebhookSettings } from './settings/webhooks.settings';

/** The areas of the settings, one class each in `settings/`: Settings is all of them. */
export const SETTINGS_AREAS = [
  ConnectionSettings,
  ServiceSettings,
  RunSettings,
  GatewaySettings,
  ModelSettings,
  ToolSettings,
  StorageSettings,
  SourceSettings,
  WebhookSettings,
] as const;

/**
 * Every setting of the service, read from the environment once at start (CONTRACTS §1), one class per area in
 * `settings/`. Each property is named after its variable in camelCase (`databaseUrl` is DATABASE_URL); `ENV`
 * derives the spelling. A default here must work on one machine with PostgreSQL and Redis on their usual ports.
 */
export class Settings extends IntersectionType(...SETTINGS_AREAS) {}

/** A setting's variable: its name in upper snake case (`s3AccessKeyId` is S3_ACCESS_KEY_ID). */
const variableOf = (setting: string): string => setting.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

/** Environment variable of each setting: every property carries a validation rule, so its metadata lists them. */
export const ENV = Object.fromEntries(
  getMetadataStorage()
    .getTargetValidationMetadatas(Settings, '', true, false)
    .map(({ propertyName }) => [propertyName, variableOf(propertyName)]),
) as Record<keyof Settings, string>;

/** Settings whose values must never reach a log line. */
export const SECRET_SETTINGS: (keyof Settings)[] = [
  'adminPassword',
  'internalToken',
  'openaiApiKey',
  'anthropicApiKey',
  'storageSigningSecret',
  's3SecretAccessKey',
  'credentialsKeys',
  'googleClientSecret',
  'msClientSecret',
  'embeddingsApiKey',
];

export class InvalidSettingsError extends Error {}

/** Reads and validates every setting; throws naming the first bad variable. */
export function loadSettings(env: NodeJS.ProcessEnv): Settings {
  const raw: Record<string, unknown> = {};
  for (const [key, variable] of Object.entries(ENV)) {
    if (env[variable] !== undefined) raw[key] = env[variable];
  }
  const settings = plainToInstance(Settings, raw, { exposeDefaultValues: true });
  const errors = validateSync(settings, { forbidUnknownValues: false });
  if (errors.length > 0) {
    const first = errors[0];
    const variable = ENV[first.property as keyof Settings];
    // A secret's value is never echoed: the message goes to logs and terminals.
    const got = SECRET_SETTINGS.includes(first.property as keyof Settings)
      ? ''
      : ` (got ${JSON.stringify(redactUrlPassword(first.value))})`;
    throw new InvalidSettingsError(
      `Invalid setting ${variable}: ${settingProblem(Settings, first, variable)}${got}`,
    );
  }
  return settings;
}

/** A connection URL's password (postgres://user:secret@host) is masked before the value is shown. */
export function redactUrlPassword(value: unknown): unknown {
  return typeof value === 'string' ? value.replace(/(\/\/[^/:@]*:)[^/@]*@/, '$1***@') : value;
}

/**
 * Reads `.env` from the working directory into the environment when the file exists. A variable already set in
 * the environment keeps its value: the environment wins over the file.
 */
export function loadDotEnv(path = '.env', env: NodeJS.ProcessEnv = process.env): void {
  if (!existsSync(path)) return;
  for (const [name, value] of Object.entries(parseEnv(readFileSync(path, 'utf8')))) {
    if (env[name] === undefined) env[name] = value;
  }
}

/**
 * Settings for an entry point: `.env` is read first when present (the environment wins over it), and a bad value
 * ends the process with a message naming the variable.
 */
export function loadSettingsOrExit(env: NodeJS.ProcessEnv = process.env): Settings {
  loadDotEnv('.env', env);
  try {
    return loadSettings(env);
  } catch (error) {
    if (error instanceof InvalidSettingsError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
