import { SetMetadata } from '@nestjs/common';

export const END_USER_TOKEN_ALLOWED = 'parley:end-user-token-allowed';

/**
 * A route an end-user token may call (CONTRACTS §17). Routes without it answer such a token 403, so a new
 * route is closed to browsers until someone decides it is theirs. It marks one route handler, never a whole
 * controller: a route added later beside open ones stays closed too.
 */
export const EndUserTokenAllowed = (): MethodDecorator => SetMetadata(END_USER_TOKEN_ALLOWED, true);
