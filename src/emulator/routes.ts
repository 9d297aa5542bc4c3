import { answerRoute } from './answer/route';
import { contentsRoutes } from './contents';
import { datasourceRoutes } from './datasources';
import type { FaultInjector } from './faults';
import { createResearchService, type ResearchOptionsInput } from './research';
import { searchRoutes } from './search/route';
import type { EmulatorContext, EmulatorRoute } from './types';
import type { WorkflowStore } from './workflows-beta';
import { workflowRoutes } from './workflows-beta-routes';

/** What the service routes are built from. */
export interface ServiceRouteDeps {
  ctx: EmulatorContext;
  faults: FaultInjector;
  workflows: WorkflowStore;
  streamDelayMs: number;
  research: ResearchOptionsInput | undefined;
}

/** The service's routes and what stops their background work. */
export interface ServiceRoutes {
  routes: EmulatorRoute[];
  close(): void;
}

/** Every `/v1` route of the emulator: Search, Contents, Answer, Datasources, Workflows and DeepResearch. */
export function serviceRoutes(deps: ServiceRouteDeps): ServiceRoutes {
  const research = createResearchService(deps.ctx, deps.research);
  const routes = [
    ...searchRoutes(deps.ctx, deps.faults),
    ...contentsRoutes(deps.ctx),
    answerRoute(deps.ctx, { faults: deps.faults, streamDelayMs: deps.streamDelayMs }),
    ...datasourceRoutes(),
    ...workflowRoutes(deps.workflows, () => deps.ctx.clock.now()),
    ...research.routes,
  ];
  return { routes, close: () => research.close() };
}
