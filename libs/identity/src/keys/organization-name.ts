import { InvalidInputError } from '@app/contracts';

/** The `--org` of a key command: an organization's name, 1-200 characters. */
export function requireOrgName(name: string): string {
  if (!name || name.length > 200) {
    throw new InvalidInputError([
      { loc: ['org'], msg: 'an organization name of 1-200 characters is required', type: 'value_error' },
    ]);
  }
  return name;
}
