export * from './starting-server';
export * from './wait-for-dependencies';
