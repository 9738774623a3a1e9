import { getMetadataStorage, ValidationError } from 'class-validator';

/** Spellings an on/off setting accepts, either case. Anything else is refused rather than read as off. */
const ON = ['true', '1', 'yes', 'on'];
const OFF = ['false', '0', 'no', 'off'];
/** Transform of an optional setting: an empty value is unset. */
export const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

const WHOLE_NUMBER = /^[+-]?\d+$/;

/**
 * Transform of a whole-number setting: a value that is not one stays the text it was, so the error shows what
 * was given (`Number('abc')` is NaN, which JSON prints as null).
 */
export const toInt = ({ value }: { value: unknown }): unknown =>
  value === undefined || value === ''
    ? undefined
    : WHOLE_NUMBER.test(String(value).trim())
      ? Number(value)
      : value;

/** Transform of an on/off setting: one of the accepted spellings, else the text as given (refused). */
export const toBool = ({ value }: { value: unknown }): unknown => {
  if (value === undefined || value === '') return undefined;
  const word = String(value).trim().toLowerCase();
  return ON.includes(word) ? true : OFF.includes(word) ? false : value;
};

type RuleName = 'isInt' | 'min' | 'max' | 'isBoolean';

/** The bound of a rule (`@Min(0)` → 0) declared on a property, if any. */
function bound(target: new () => object, property: string, rule: RuleName): number | undefined {
  const metadata = getMetadataStorage()
    .getTargetValidationMetadatas(target, '', true, false)
    .find((entry) => entry.propertyName === property && entry.name === rule);
  return metadata?.constraints?.[0] as number | undefined;
}

/**
 * What is wrong with a setting's value and what it accepts, in words a person fixing `.env` can act on. Numbers
 * and on/off values get one sentence whichever of their rules failed; other rules say it in their own message.
 */
export function settingProblem(target: new () => object, error: ValidationError, variable: string): string {
  const failed = Object.keys(error.constraints ?? {});
  if (failed.includes('isBoolean')) return 'must be true or false (1/0, yes/no and on/off are accepted too)';
  if (failed.some((rule) => rule === 'isInt' || rule === 'min' || rule === 'max')) {
    const min = bound(target, error.property, 'min');
    const max = bound(target, error.property, 'max');
    const range =
      min !== undefined && max !== undefined
        ? ` from ${min} to ${max}`
        : min !== undefined
          ? ` of at least ${min}`
          : max !== undefined
            ? ` of at most ${max}`
            : '';
    return `must be a whole number${range}`;
  }
  const reason = Object.values(error.constraints ?? {})[0] ?? 'is invalid';
  return reason.replace(error.property, variable);
}
