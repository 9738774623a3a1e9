// Writes <dist>/build-info.json: the commit the build was made from and when, for the deployment tag that the
// OpenAPI document reports (`info.version`, `info.x-deployment`). The commit comes from GIT_COMMIT (image builds
// pass it, having no .git) or from git; without either it is null and the tag is the package version alone.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const dist = process.argv[2] ?? 'dist';

function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

const commit = process.env.GIT_COMMIT?.slice(0, 7) || gitCommit();
writeFileSync(
  join(dist, 'build-info.json'),
  `${JSON.stringify({ commit, built_at: new Date().toISOString() })}\n`,
);
