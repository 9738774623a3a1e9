export * from './agent-management.module';
export * from './agent.mapper';
export * from './use-cases/archive-agent.use-case';
export * from './use-cases/create-agent.use-case';
export * from './use-cases/get-agent.use-case';
export * from './use-cases/list-agents.use-case';
export * from './use-cases/update-agent.use-case';
