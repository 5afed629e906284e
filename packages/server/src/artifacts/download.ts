import type { Hono } from 'hono';
import type { Services } from '../services.js';

// Placeholder: the artifacts issue serves signed downloads on {storage_url}.
export function mountStorage(app: Hono, services: Services) {
  void app;
  void services;
}
