export { isRequestDto, modelSchema } from './request-schema';
export { validateRequest, RequestValidation } from './validate-request';
