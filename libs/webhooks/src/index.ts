export * from './deliver-webhook.use-case';
export * from './retry-schedule';
export * from './webhook-metrics';
export * from './webhook-secret';
export * from './webhook-sender';
export * from './webhooks.module';
