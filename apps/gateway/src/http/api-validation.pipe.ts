import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { InvalidInputError, LocRoot, toValidationIssues } from '@app/contracts';

class RawValidationFailure extends Error {
  constructor(readonly errors: ValidationError[]) {
    super('validation failed');
  }
}

const ROOTS: Partial<Record<ArgumentMetadata['type'], LocRoot>> = {
  body: 'body',
  query: 'query',
  param: 'path',
};

/**
 * Nest's ValidationPipe, answering in the 422 shape of API-SPEC 2.13 / CONTRACTS §3: the pipe knows
 * whether it validated the body, the query or the path, which becomes the first element of each `loc`.
 * Unknown body fields are dropped, not refused.
 */
@Injectable()
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: false,
      forbidUnknownValues: false,
      validationError: { target: true, value: true },
      exceptionFactory: (errors) => new RawValidationFailure(errors),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const root = ROOTS[metadata.type];
    if (root === 'body' && metadata.metatype && this.toValidate(metadata)) {
      if (value === undefined || value === null) {
        throw new InvalidInputError([{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }]);
      }
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw new InvalidInputError([
          {
            loc: ['body'],
            msg: 'Input should be a valid dictionary or object to extract fields from',
            type: 'model_attributes_type',
            input: value,
          },
        ]);
      }
    }
    try {
      return await super.transform(value, metadata);
    } catch (error) {
      if (error instanceof RawValidationFailure && root) {
        throw new InvalidInputError(toValidationIssues(error.errors, root));
      }
      throw error;
    }
  }
}
