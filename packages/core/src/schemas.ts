// `@contextkit/core/schemas`: every zod schema of core, for the code that validates with zod or
// builds its own schemas from ours: a store checking the entries it reads, an application checking
// a message that came over the wire, a package whose options hold a `Section[]`. The only entry
// of core that loads zod: the root, `/store` and `/cache` check with zod-free checks
// (`MessageListCheck`, `SectionListCheck`, `ModelInfoCheck`, … and `@contextkit/core/check`), so
// a cold `import()` of a package that needs none of these schemas never spends zod's load. The
// types of these values are exported from the root (`Message`, `SessionEntry`, …). Pure like the
// root. The rule is in docs/architecture.md ("exports").
export {
  AssistantMessageSchema,
  ContentBlockSchema,
  ImageBlockSchema,
  ImageMediaTypeSchema,
  JsonSchemaObjectSchema,
  MessageSchema,
  RedactedThinkingBlockSchema,
  RoleSchema,
  StopReasonSchema,
  TextBlockSchema,
  ThinkingBlockSchema,
  ToolCallBlockSchema,
  ToolDefinitionSchema,
  ToolResultBlockSchema,
  UsageSchema,
} from './message-schemas.js'
export { ModelEntrySchema, ModelInfoSchema, ModelPricingSchema } from './model-info.js'
export { SectionSchema } from './section-schema.js'
export {
  ApprovalStatusSchema,
  SessionApprovalEntrySchema,
  SessionCompactionEntrySchema,
  SessionCustomEntrySchema,
  SessionEntrySchema,
  SessionHeaderEntrySchema,
  SessionIdSchema,
  SessionMessageEntrySchema,
} from './session-entry-schemas.js'
export { SessionLeaseRequestSchema } from './session-lease-schema.js'
