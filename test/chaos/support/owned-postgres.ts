import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../support/processes';

const run = promisify(execFile);

/** The newest PostgreSQL server binaries installed (Debian layout). */
function postgresBin(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('no PostgreSQL under /usr/lib/postgresql');
  return join('/usr/lib/postgresql', versions[0], 'bin');
}

/**
 * A PostgreSQL cluster of the chaos suite's own (initdb into a temporary directory, a spare port, trust auth,
 * fsync off): it may be stopped and started again without touching the shared server. PostgreSQL refuses to
 * run as root, so under root the cluster belongs to the `postgres` user.
 */
export class OwnedPostgres {
  private readonly bin = postgresBin();
  private readonly asPostgres = process.getuid?.() === 0;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(): Promise<OwnedPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'parley-chaos-pg-'));
    const postgres = new OwnedPostgres(await freePort(), dir);
    if (postgres.asPostgres) {
      const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
      chownSync(dir, await id('-u'), await id('-g'));
    }
    await postgres.exec('initdb', ['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
    await postgres.restart();
    return postgres;
  }

  /** A URL of a database on this cluster (created by the migration step). */
  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async restart(): Promise<void> {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dir} -c fsync=off -c max_connections=200`;
    await this.exec('pg_ctl', [
      '-D',
      join(this.dir, 'data'),
      '-l',
      join(this.dir, 'log'),
      '-o',
      options,
      '-w',
      'start',
    ]);
  }

  /** `fast` closes every connection and stops cleanly; `immediate` is a crash (recovery on next start). */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.exec('pg_ctl', ['-D', join(this.dir, 'data'), '-m', mode, '-w', 'stop']);
  }

  async dispose(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async exec(tool: string, args: string[]): Promise<void> {
    const path = join(this.bin, tool);
    if (this.asPostgres) await run('runuser', ['-u', 'postgres', '--', path, ...args]);
    else await run(path, args);
  }
}
