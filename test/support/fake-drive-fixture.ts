import { FakeGoogleDrive } from './fake-google-drive';

// Apart from fake-google-drive.ts, which the benchmarks compile too: jest's hooks exist only under jest.
/**
 * A fake Drive for the describe block it is called in: listening before the block's later hooks run (a
 * deployment takes its `env()`), with the token `token` granted and `firstFile` as shared/a.txt; closed after.
 */
export function useFakeDrive(firstFile: string): FakeGoogleDrive {
  const drive = new FakeGoogleDrive();
  beforeAll(async () => {
    await drive.start();
    drive.oauth.grant('token');
    drive.addFile('shared', 'a.txt', 'text/plain', firstFile);
  });
  afterAll(() => drive.stop());
  return drive;
}
