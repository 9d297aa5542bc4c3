import { z } from 'zod';

/** Checkpoint types, in the order a task reaches them. */
export const CHECKPOINT_TYPES = ['planning_questions', 'plan_review', 'source_review', 'outline_review'] as const;
export const checkpointType = z.enum(CHECKPOINT_TYPES);
export type CheckpointType = z.infer<typeof checkpointType>;

/** The active checkpoint of a task that is `awaiting_input` or `paused`. */
export const interaction = z.looseObject({
  interaction_id: z.string().min(1),
  type: checkpointType,
  data: z.unknown().optional(),
  created_at: z.number(),
  timeout_ms: z.number().nonnegative(),
  expected_response: z.unknown().optional(),
});
export type Interaction = z.infer<typeof interaction>;

/** Answers to the planning questions. */
export const planningQuestionsResponse = z.strictObject({
  answers: z.array(z.strictObject({ question: z.string().min(1), answer: z.string() })).min(1, 'needs at least one answer'),
});

/** Approve a plan or outline, or reject it with the changes wanted (keyed on `approved`, so errors name the field). */
export const reviewResponse = z.discriminatedUnion('approved', [
  z.strictObject({ approved: z.literal(true) }),
  z.strictObject({ approved: z.literal(false), modifications: z.string().trim().min(1, 'must say what to change') }),
]);

/** Domains to keep and drop after the source review. */
export const sourceReviewResponse = z.strictObject({
  included_domains: z.array(z.string().min(1)),
  excluded_domains: z.array(z.string().min(1)),
});

/** The response shape each checkpoint type takes. */
export const checkpointResponseSchemas = {
  planning_questions: planningQuestionsResponse,
  plan_review: reviewResponse,
  source_review: sourceReviewResponse,
  outline_review: reviewResponse,
} as const satisfies Record<CheckpointType, z.ZodType>;

/** Any checkpoint response. */
export type CheckpointResponse = z.infer<typeof planningQuestionsResponse> | z.infer<typeof reviewResponse> | z.infer<typeof sourceReviewResponse>;

/** `POST /v1/deepresearch/tasks/{id}/respond` body. */
export const respondRequest = z.strictObject({
  interaction_id: z.string().min(1),
  response: z.union([planningQuestionsResponse, reviewResponse, sourceReviewResponse]),
});
export type RespondRequest = z.infer<typeof respondRequest>;

/** `POST /v1/deepresearch/tasks/{id}/respond` response. */
export const respondResponse = z.looseObject({
  success: z.boolean(),
  message: z.string().optional(),
  deepresearch_id: z.string().optional(),
  status: z.string().optional(),
});
export type RespondResponse = z.infer<typeof respondResponse>;
