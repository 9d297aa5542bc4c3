import { EmulatorHttpError } from '../types';
import type { TaskRecord } from './task-record';

/** The 404 every unknown, foreign or deleted task id gets. */
export function taskNotFound(): EmulatorHttpError {
  return EmulatorHttpError.of(404, 'Task not found');
}

/** All tasks by id, plus each organisation's creation order for the recent-tasks list. */
export class TaskStore {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #byOrganization = new Map<string, string[]>();

  /** Adds a new task. */
  add(task: TaskRecord): void {
    this.#tasks.set(task.id, task);
    let ids = this.#byOrganization.get(task.organization);
    if (!ids) this.#byOrganization.set(task.organization, (ids = []));
    ids.push(task.id);
  }

  /** A task by id regardless of owner (internal use). */
  get(id: string): TaskRecord | undefined {
    return this.#tasks.get(id);
  }

  /** The organisation's task, or a 404: other organisations' tasks are indistinguishable from unknown ones. */
  require(id: string, organization: string): TaskRecord {
    const task = this.#tasks.get(id);
    if (!task || task.organization !== organization) throw taskNotFound();
    return task;
  }

  /** Forgets a task; later lookups answer 404. */
  delete(task: TaskRecord): void {
    this.#tasks.delete(task.id);
    const ids = this.#byOrganization.get(task.organization);
    const index = ids?.lastIndexOf(task.id) ?? -1;
    if (ids && index >= 0) ids.splice(index, 1);
  }

  /** The organisation's most recent tasks, newest first. */
  recent(organization: string, limit: number): TaskRecord[] {
    const ids = this.#byOrganization.get(organization) ?? [];
    const found: TaskRecord[] = [];
    for (let index = ids.length - 1; index >= 0 && found.length < limit; index--) {
      const task = this.#tasks.get(ids[index]!);
      if (task) found.push(task);
    }
    return found;
  }

  /** Number of tasks held. */
  get size(): number {
    return this.#tasks.size;
  }
}
