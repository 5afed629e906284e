// The typed SDK: client, resources and errors (core.ts), plus the shared contract (schemas and types).
export * from '@testreport/contract';
export * from './core.js';
