import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { emptyToUndefined, toBool, toInt } from './setting-problems';

/** Decorators applied as if stacked above a property in this order (TypeScript applies a stack bottom up). */
const stacked =
  (...decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, property) => {
    for (const decorator of [...decorators].reverse()) decorator(target, property);
  };

/**
 * A whole-number setting within its bounds. The bounds are declared as `min`/`max` rules because settingProblem
 * reads them back to word the error ("must be a whole number from 1 to 1000").
 */
export const WholeNumber = ({ min, max }: { min: number; max?: number }): PropertyDecorator =>
  stacked(Transform(toInt), IsInt(), Min(min), ...(max === undefined ? [] : [Max(max)]));

/** An on/off setting, in any spelling toBool accepts. */
export const OnOff = (): PropertyDecorator => stacked(Transform(toBool), IsBoolean());

/** A setting that may be left unset (an empty value is unset); when set, it must pass `rules`. */
export const Optional = (...rules: PropertyDecorator[]): PropertyDecorator =>
  stacked(IsOptional(), Transform(emptyToUndefined), ...rules);

/** An http(s) URL: the address of a service the deployment calls. */
export const HttpUrl = (): PropertyDecorator =>
  Matches(/^https?:\/\//, { message: 'must be an http(s) URL' });
