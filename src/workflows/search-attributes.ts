import { defineSearchAttributeKey } from '@temporalio/common';

/** Task status as operators filter on it in the Temporal UI (`ResearchStatus = "awaiting_input"`). */
export const ResearchStatusKey = defineSearchAttributeKey('ResearchStatus', 'KEYWORD');
/** DeepResearch mode of the task, or of a batch's tasks. */
export const ResearchModeKey = defineSearchAttributeKey('ResearchMode', 'KEYWORD');
/** The service's task id, to go from a service id to its workflow. */
export const DeepResearchIdKey = defineSearchAttributeKey('DeepResearchId', 'KEYWORD');
/** The pipeline a workflow belongs to. */
export const ResearchPipelineKey = defineSearchAttributeKey('ResearchPipeline', 'KEYWORD');
/** USD billed so far. */
export const ResearchCostUsdKey = defineSearchAttributeKey('ResearchCostUsd', 'DOUBLE');

/** The custom search attributes this project uses, by name and type, for registering on a namespace. */
export const RESEARCH_SEARCH_ATTRIBUTES = {
  ResearchStatus: 'KEYWORD',
  ResearchMode: 'KEYWORD',
  DeepResearchId: 'KEYWORD',
  ResearchPipeline: 'KEYWORD',
  ResearchCostUsd: 'DOUBLE',
} as const;
