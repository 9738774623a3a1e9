export * from './logging.module';
export * from './metrics';
export * from './shutdown';
export * from './tracing-genai';
export * from './startup-logger';
export * from './health-probes';
