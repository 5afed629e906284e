/** Kept equal to package.json by a test; sent in the User-Agent. */
export const VERSION = '0.1.0';
