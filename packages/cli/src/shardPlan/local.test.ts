import { describe, expect, it } from 'vitest';
import { fileArgs, fitToLocalFiles } from './local.js';

describe('fitToLocalFiles', () => {
  const plan = [
    { index: 1, files: ['a.spec.ts', 'gone.spec.ts'], expectedDuration: 200 },
    { index: 2, files: ['b.spec.ts'], expectedDuration: 60 },
  ];

  it('drops files that are gone and puts new ones into the least loaded shard', () => {
    expect(fitToLocalFiles(plan, ['a.spec.ts', 'b.spec.ts', 'new.spec.ts'])).toEqual([
      { index: 1, files: ['a.spec.ts'], expectedDuration: 100 },
      { index: 2, files: ['b.spec.ts', 'new.spec.ts'], expectedDuration: 160 },
    ]);
  });

  it('runs every local file exactly once', () => {
    const local = ['a.spec.ts', 'b.spec.ts', 'c.spec.ts', 'd.spec.ts', 'e.spec.ts'];
    const files = fitToLocalFiles(plan, local).flatMap((s) => s.files);
    expect(files.sort()).toEqual(local);
  });
});

describe('fileArgs', () => {
  it('anchors each file at a path separator and the end, with regex characters escaped', () => {
    const [arg] = fileArgs(['tests/login.spec.ts']);
    expect(arg).toBe('/tests/login\\.spec\\.ts$');
    // Playwright: new RegExp(arg, 'gi') over the absolute path.
    const re = new RegExp(arg, 'gi');
    expect(re.test('/repo/tests/login.spec.ts')).toBe(true);
    re.lastIndex = 0;
    expect(re.test('/repo/tests/admin-login.spec.ts')).toBe(false);
    re.lastIndex = 0;
    expect(re.test('/repo/tests/login.spec.tsx')).toBe(false);
  });
});
