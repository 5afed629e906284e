// The SDK is built by its own issue; the shared contract is already exported.
export * from './schemas/index.js';
