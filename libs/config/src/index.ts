export * from './settings';
export { maxStepsOf } from './settings/run.settings';
export * from './settings.module';
