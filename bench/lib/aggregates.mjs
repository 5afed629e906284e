// The insights aggregates (GET /insights, issue 27) of a generated history. Ingestion keeps them as
// results arrive; a history written straight into the tables must get them the way the server's
// migration fills them for results stored before it. HOOK: until the insights branch is merged
// there are no aggregate tables, and this does nothing (returns null).
export async function fillInsightsAggregates(_dataDir, _db, _log) {
  return null;
}
