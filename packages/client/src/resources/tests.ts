import type { BodyOf, QueryOf } from '@testreport/contract';
import { LIMITS } from '@testreport/contract/core';
import type { TestCreate, TestCreated } from '@testreport/contract';
import { chunk, runBatches, type BulkOptions } from '../core/bulk.js';
import { ValidationError } from '../core/errors.js';
import { paginate } from '../core/pagination.js';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';
import { JsonText } from '../core/jsonText.js';

/** A batch's `tests[3].title` becomes `tests[<index in the caller's list>].title`. */
function inCallerTerms(err: unknown, offset: number): unknown {
  if (!(err instanceof ValidationError) || offset === 0) return err;
  const m = /^tests\[(\d+)\](.*)$/.exec(err.details?.field ?? '');
  if (!m) return err;
  const [inBatch, inList] = [`tests[${m[1]}]`, `tests[${offset + Number(m[1])}]`];
  return new ValidationError({
    status: err.status, code: err.code, message: err.serverMessage.split(inBatch).join(inList),
    details: { ...err.details, field: inList + m[2] }, requestId: err.requestId, operation: err.operation, headers: err.headers,
  });
}

export class Tests extends APIResource {
  create(body: BodyOf<'tests.create'>, opts?: RequestOptions) {
    return this.client.request('tests.create', { body }, opts);
  }
  /** 1–500 results in one request, all or nothing; or the request's JSON, already serialised. */
  createBatch(tests: TestCreate[] | JsonText<BodyOf<'tests.createBatch'>>, opts?: RequestOptions) {
    return this.client.request('tests.createBatch', { body: tests instanceof JsonText ? tests : { tests } }, opts);
  }
  /**
   * Any number of results: split into batches (≤ 500) sent `concurrency` at a time; results come
   * back in input order. Each batch is all or nothing on its own; after the first failing batch no
   * new one starts and its error is thrown (batches already stored stay stored — re-sending them
   * with the same `idempotencyKey` creates nothing twice).
   */
  async createMany(tests: TestCreate[], options: BulkOptions & RequestOptions = {}): Promise<{ data: TestCreated[] }> {
    const { batchSize = LIMITS.batchMax, concurrency = 4, idempotencyKey, ...opts } = options;
    const batches = chunk(tests, Math.min(batchSize, LIMITS.batchMax));
    const size = batches[0]?.length ?? 0;
    const data = await runBatches(batches, concurrency, async (batch, index) => {
      try {
        const res = await this.createBatch(batch, { ...opts, idempotencyKey: idempotencyKey ? `${idempotencyKey}:${index}` : undefined });
        return res.data;
      } catch (err) {
        throw inCallerTerms(err, index * size);
      }
    });
    return { data };
  }
  list(query: QueryOf<'tests.list'>, opts?: RequestOptions) {
    return this.client.request('tests.list', { query }, opts);
  }
  get(id: string, opts?: RequestOptions) {
    return this.client.request('tests.get', { params: { id } }, opts);
  }
  /** Steps in execution order, nested steps inside their parent: of try `retry` (default the last). */
  steps(id: string, query: QueryOf<'tests.steps'> = {}, opts?: RequestOptions) {
    return this.client.request('tests.steps', { params: { id }, query }, opts);
  }
  /** The last 20 results of the same test case, newest first. */
  history(id: string, opts?: RequestOptions) {
    return this.client.request('tests.history', { params: { id } }, opts);
  }

  /** Failed or missing screenshot comparisons of the result, each with its acceptance (docs/decisions.md §13). */
  snapshots(id: string, opts?: RequestOptions) {
    return this.client.request('tests.snapshots', { params: { id } }, opts);
  }

  /** Accepts the actuals of the named snapshots (all when `names` is absent) as new baselines. */
  acceptSnapshots(id: string, body: BodyOf<'tests.acceptSnapshots'> = {}, opts?: RequestOptions) {
    return this.client.request('tests.acceptSnapshots', { params: { id }, body }, opts);
  }

  /** Undoes the acceptance of the named snapshots (all when `names` is absent). */
  unacceptSnapshots(id: string, body: BodyOf<'tests.unacceptSnapshots'> = {}, opts?: RequestOptions) {
    return this.client.request('tests.unacceptSnapshots', { params: { id }, body }, opts);
  }
  iterate(query: QueryOf<'tests.list'>, opts?: RequestOptions) {
    return paginate((q, o) => this.list(q, o), query, opts);
  }
}
