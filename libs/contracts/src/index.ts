export * from './errors';
export * from './jobs';
export * from './validation-error';
export * from './dto/rules';
export * from './responses/message.response';
