/** Research tasks by final status (`completed`, `cancelled`, `cancel_refused`, `failed`) and mode. */
export const TASKS_METRIC = 'research_tasks_total';
/** What finished research tasks cost, in USD (histogram: `_sum` is the spend, `_count` the tasks). */
export const TASK_COST_METRIC = 'research_task_cost_usd';
/** Research task workflows started (not continued as new): in flight = this minus `research_tasks_total`. */
export const TASKS_STARTED_METRIC = 'research_tasks_started_total';
/**
 * Gauges a pipeline run sets, labelled by `pipeline` only: each holds the value the pipeline's latest
 * run reported (a run key per label would grow without bound). A run sets them whenever its state shows
 * (`publish`) and leaves in-flight, waiting and reserved at 0 when it ends; spent stays at its total.
 */
export const RUN_GAUGES = {
  /** Items of the run being worked on (tasks, steps or batch members) right now. */
  inFlight: 'research_pipeline_items_in_flight',
  /** Items waiting for a person: a checkpoint to answer or an operator's decision. */
  waitingForPerson: 'research_pipeline_items_waiting_for_person',
  /** 1 while the run waits for its budget to be raised, else 0. */
  waitingForBudget: 'research_pipeline_run_waiting_for_budget',
  /** 1 while the run waits for credits (the service said 402) and a resume, else 0. */
  waitingForCredits: 'research_pipeline_run_waiting_for_credits',
  /** USD the run has reserved for work under way. */
  reservedUsd: 'research_pipeline_reserved_usd',
  /** USD the run has spent so far (its ledger). */
  spentUsd: 'research_pipeline_spent_usd',
} as const;
