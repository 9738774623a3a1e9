export { isRequestDto, modelSchema } from './request-schema';
export type { FieldSchema, TypeSchema } from './request-schema';
export { nulIssue, validateRequest, RequestValidation } from './validate-request';
export { PythonFloat, pythonJson } from './python-json';
