export { isRequestDto, modelSchema } from './request-schema';
export type { FieldSchema, ModelSchema, TypeSchema } from './request-schema';
export { nulIssue, validateRequest, validateWithSchema, RequestValidation } from './validate-request';
export { PythonFloat, pythonJson } from './python-json';
