/** Research tasks by final status (`completed`, `cancelled`, `cancel_refused`, `failed`) and mode. */
export const TASKS_METRIC = 'research_tasks_total';
/** What finished research tasks cost, in USD (histogram: `_sum` is the spend, `_count` the tasks). */
export const TASK_COST_METRIC = 'research_task_cost_usd';
