// `@testreport/reporter/delivery`: the delivery engine, shared with `reporter upload` (none of it
// loads Playwright). Apart from the reporter's entry, which must stay light for Playwright to load.
export { Delivery, isRefusal, type DeliveryOptions, type ArtifactOutcome, type Ack } from './engine.js';
export { deliver, type Outgoing, type DeliveryReport, type Counts, type DeliverOptions } from './deliver.js';
export { planArtifact, type AttachmentInput, type ArtifactPlan } from './artifacts.js';
export { idempotencyKey, type ArtifactJob, type RecordKind, type RunBody, type TestBody } from './records.js';
export {
  mapResults, mapTry, mapError, mapSteps, isTextAttachment,
  type ResultLike, type ErrorLike, type StepLike, type MapContext, type MappedResults, type TryFile, type FinalStatus,
} from '../results/attempts.js';
