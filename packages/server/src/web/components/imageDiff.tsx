import type { Artifact } from '@testreport/contract';

/** `box-expected.png`, `box-actual.png`, `box-diff.png`: the files of one failed snapshot comparison. */
const PART = /^(.+)-(expected|actual|diff|previous)\.[a-z0-9]+$/i;

export interface Comparison {
  name: string;
  expected?: Artifact;
  actual?: Artifact;
  diff?: Artifact;
}

/** Splits screenshots into snapshot comparisons (grouped by name) and the other images. */
export function groupComparisons(shots: Artifact[]): { comparisons: Comparison[]; others: Artifact[] } {
  const byName = new Map<string, Comparison>();
  const others: Artifact[] = [];
  for (const a of shots) {
    const m = PART.exec(a.fileName);
    if (!m || m[2].toLowerCase() === 'previous') {
      if (!m) others.push(a);
      continue;
    }
    const name = m[1];
    let c = byName.get(name);
    if (!c) byName.set(name, (c = { name }));
    c[m[2].toLowerCase() as 'expected' | 'actual' | 'diff'] = a;
  }
  const comparisons = [...byName.values()].filter((c) => c.actual || c.diff);
  for (const c of byName.values()) if (!c.actual && !c.diff && c.expected) others.push(c.expected);
  return { comparisons, others };
}

const Img = ({ a, label }: { a: Artifact; label: string }) => (
  <figure data-part={label.toLowerCase()}>
    <img src={a.url} alt={`${label}: ${a.fileName}`} loading="lazy" />
    <figcaption class="small muted">{label}</figcaption>
  </figure>
);

/**
 * One comparison as Playwright's report shows it. Without script every image is shown labelled;
 * the island (assets/islands.ts) turns it into a viewer with the modes Diff, Actual, Expected, Side
 * by side and Slider (buttons and a range input, all keyboard-usable). A missing baseline (Playwright
 * wrote the actual as the new expected) shows the actual only.
 */
export function ImageComparison({ c, missingBaseline }: { c: Comparison; missingBaseline: boolean }) {
  const expected = missingBaseline ? undefined : c.expected;
  const modes = [c.diff && 'Diff', c.actual && 'Actual', expected && 'Expected', expected && c.actual && 'Side by side', expected && c.actual && 'Slider'].filter(Boolean) as string[];
  return (
    <section class="imgdiff" data-imgdiff={modes.join('|')} aria-label={`Image comparison ${c.name}`}>
      <h4>
        {c.name} {missingBaseline ? <span class="muted small">— no baseline existed: actual only</span> : !expected ? <span class="muted small">— actual only</span> : null}
      </h4>
      <div class="imgdiff-images">
        {c.diff && <Img a={c.diff} label="Diff" />}
        {c.actual && <Img a={c.actual} label="Actual" />}
        {expected && <Img a={expected} label="Expected" />}
      </div>
    </section>
  );
}
