// stream-json v1 ships no types; only the parser entry is used (tokens are walked by hand).
declare module 'stream-json' {
  import type { Transform } from 'node:stream';
  export interface Token { name: string; value?: unknown }
  export function parser(options?: { packValues?: boolean; streamValues?: boolean; jsonStreaming?: boolean }): Transform;
  const api: { parser: typeof parser };
  export default api;
}
