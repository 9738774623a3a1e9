export * from './settings';
export * from './settings.module';
