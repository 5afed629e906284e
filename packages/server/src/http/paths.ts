import type { EndpointDef } from '@testreport/contract';

/** {base_url} relative to {app_url}. */
export const API_PREFIX = '/api/v1';
export const fullPath = (def: EndpointDef) => (def.base === 'api' ? API_PREFIX : '') + def.path;
