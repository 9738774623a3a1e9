import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Settings } from '@app/config';

/** What the OpenAPI document says about the running deployment (`info.x-deployment`). */
interface DeploymentInfo {
  tag: string;
  commit: string | null;
  built_at: string | null;
  started_at: string;
}

const startedAt = new Date().toISOString();

/**
 * The deployment tag and its metadata: DEPLOYMENT_TAG, else the package version and the commit the build was
 * made from (`0.1.0+abc1234`, from the build-info.json that `npm run build` writes beside the compiled code).
 */
export function deploymentInfo(settings: Settings): DeploymentInfo {
  const build = readJsonUp<{ commit?: string | null; built_at?: string }>('build-info.json', () => true);
  const commit = build?.commit ?? null;
  const version = serviceVersion();
  return {
    tag: settings.deploymentTag ?? (commit ? `${version}+${commit}` : version),
    commit,
    built_at: build?.built_at ?? null,
    started_at: startedAt,
  };
}

/**
 * The version in the project's package.json, found by walking up from the compiled file (wherever the build
 * went) or from the working directory. Not imported: tsc would copy package.json into the build, and a
 * second package named `parley` under the project confuses jest.
 */
function serviceVersion(): string {
  const pkg = readJsonUp<{ name?: string; version?: string }>(
    'package.json',
    (found) => found.name === 'parley',
  );
  return pkg?.version ?? '0.0.0';
}

/** The first file of that name, walking up from this file's folder, then from the working directory, that fits. */
function readJsonUp<T>(name: string, fits: (found: T) => boolean): T | null {
  for (const start of [__dirname, process.cwd()]) {
    for (let dir = start; ; dir = dirname(dir)) {
      const file = join(dir, name);
      if (existsSync(file)) {
        const found = JSON.parse(readFileSync(file, 'utf8')) as T;
        if (fits(found)) return found;
      }
      if (dirname(dir) === dir) break;
    }
  }
  return null;
}
