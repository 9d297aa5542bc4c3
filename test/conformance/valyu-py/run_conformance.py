"""
The official Python client (valyu-py, the version in requirements.txt, installed by
`npm run conformance:install`) drives the emulator through its methods. Each case asserts what a user
of the client relies on. Prints one JSON document: the client's version and one outcome per case
(`pass`, `fail`, `xfail` for a known conflict between an older client and the spec, with its reason,
or `unsupported` when an older release lacks the method or option).

Run by test/conformance/valyu-py.test.ts, which starts the emulator and passes VALYU_BASE_URL and
VALYU_API_KEY. Standard library and the client only.
"""

import json
import os
import sys
import time
import traceback
from importlib.metadata import version

from valyu import Valyu

QUERY = "Lithium-ion battery recycling capacity in Europe"

# valyu-py releases up to 2.7.1 build `Resp(success=True, **data)` from the body of update, cancel,
# delete and toggle-public; the spec's bodies carry `success`, so Python raises "got multiple values for
# keyword argument 'success'". Later releases (2.8.9 on) drop the key first. The emulator keeps the spec.
SUCCESS_CONFLICT = "multiple values for keyword argument 'success'"
SUCCESS_CONFLICT_REASON = (
    "this valyu-py release builds its response as Resp(success=True, **body) and the spec's body carries "
    "success; the emulator keeps the spec (releases from 2.8.9 drop the key first)"
)


class ExpectedFailure(Exception):
    pass


def ok(response):
    """The response, or a failure naming what the client reported instead."""
    if not getattr(response, "success", False):
        error = str(getattr(response, "error", None) or "(no error text)")
        if SUCCESS_CONFLICT in error:
            raise ExpectedFailure(SUCCESS_CONFLICT_REASON)
        raise AssertionError(f"valyu-py reported failure: {error}")
    return response


def check(condition, message):
    if not condition:
        raise AssertionError(message)


valyu = Valyu(api_key=os.environ["VALYU_API_KEY"], base_url=os.environ["VALYU_BASE_URL"])
state = {}


def until(task_id, done, attempts=400):
    for _ in range(attempts):
        status = ok(valyu.deepresearch.status(task_id))
        if done(status):
            return status
        time.sleep(0.01)
    raise AssertionError(f"task {task_id} never reached the expected state")


def create_task(**options):
    created = ok(valyu.deepresearch.create(**options))
    check(isinstance(created.deepresearch_id, str), "no deepresearch_id")
    return created.deepresearch_id


def completed_task():
    if "completed" not in state:
        task_id = create_task(query=QUERY, mode="fast")
        state["completed"] = until(task_id, lambda status: status.status == "completed")
    return state["completed"]


# ---- search, contents, answer, datasources -------------------------------------------------------


def search_ranked():
    response = ok(valyu.search(QUERY, max_num_results=5, relevance_threshold=0.3, response_length="short", start_date="2020-01-01"))
    check(len(response.results) > 0, "no results")
    counts = response.results_by_source
    check(isinstance(counts.web, int) and isinstance(counts.proprietary, int), "results_by_source lacks web or proprietary")
    for result in response.results:
        check(result.length >= 0 and result.price >= 0, f"result without length or price: {result}")


def search_structured():
    response = ok(valyu.search("ACMR daily prices", included_sources=["svc/svc-stocks"]))
    market = [result for result in response.results if result.source == "svc/svc-stocks"]
    check(market and market[0].data_type == "structured", "no structured market result")


def contents_sync():
    response = ok(valyu.contents(["https://example.org/battery-recycling", "https://down.invalid/page"], summary=True, extract_effort="high"))
    statuses = [getattr(result, "status", "success") for result in response.results]
    check(statuses == ["success", "failed"], f"statuses {statuses}")


def contents_async_job():
    urls = [f"https://example.org/page-{index}" for index in range(12)]
    started = valyu.contents(urls, async_mode=True)
    check(getattr(started, "job_id", None), f"no job id: {started}")
    state["job_id"] = started.job_id
    job = valyu.get_contents_job(started.job_id)
    check(job.urls_total == 12 and job.status in ("pending", "processing", "completed"), f"job {job}")


def contents_wait_for_job():
    urls = [f"https://example.org/doc-{index}" for index in range(11)]
    started = valyu.contents(urls, async_mode=True)
    done = valyu.wait_for_contents_job(started.job_id, poll_interval=1, max_wait_time=30)
    check(done.status == "completed" and len(done.results or []) == 11, f"job {done.status}")


def contents_job_unknown():
    try:
        job = valyu.get_contents_job("cj_0000000000000000")
    except Exception as error:  # the client raises for a 404: it must name the job
        check("cj_0000000000000000" in str(error) or "404" in str(error) or "not found" in str(error).lower(), f"unclear error: {error}")
        return
    check(not getattr(job, "success", True) or getattr(job, "status", None) == "failed", f"an unknown job read as {job}")


def answer_collected():
    answer = ok(valyu.answer("What limits lithium battery recycling?", search_type="web", data_max_price=1, fast_mode=True))
    check(len(answer.contents) > 0, "empty answer")
    check(len(answer.search_results) > 0, "no search results")
    for result in answer.search_results:
        check(result.length >= 0, "a search result without length")
    check(answer.cost.total_deduction_dollars > 0, "no cost")


def answer_streamed():
    kinds = set()
    for chunk in valyu.answer("What limits lithium battery recycling?", streaming=True):
        kinds.add(chunk.type)
    check({"search_results", "content", "metadata", "done"} <= kinds, f"stream kinds {sorted(kinds)}")


def datasources_list():
    response = ok(valyu.datasources())
    check(len(response.datasources) > 0, "no datasources")


def datasources_categories():
    response = ok(valyu.datasources_categories())
    check(len(response.categories) > 0, "no categories")


# ---- DeepResearch --------------------------------------------------------------------------------


def deepresearch_create_status():
    task_id = create_task(query=QUERY, mode="fast", metadata={"run": "conformance"})
    status = ok(valyu.deepresearch.status(task_id))
    check(status.deepresearch_id == task_id and status.status in ("queued", "running", "completed"), f"status {status.status}")


def deepresearch_wait():
    task_id = create_task(query=QUERY, mode="fast")
    done = ok(valyu.deepresearch.wait(task_id, poll_interval=0.01, max_wait_time=60))
    check(done.status == "completed" and done.output, "no output")


def deepresearch_list():
    completed_task()
    response = ok(valyu.deepresearch.list(limit=10))
    check(len(response.data) > 0, "empty list")


def deepresearch_update():
    task_id = create_task(query=QUERY, mode="max")
    ok(valyu.deepresearch.update(task_id, "Add a table of plants"))


def deepresearch_cancel():
    task_id = create_task(query=QUERY, mode="max")
    ok(valyu.deepresearch.cancel(task_id))
    check(ok(valyu.deepresearch.status(task_id)).status == "cancelled", "not cancelled")


def deepresearch_delete():
    task_id = completed_task().deepresearch_id
    other = create_task(query=QUERY, mode="fast")
    until(other, lambda status: status.status == "completed")
    ok(valyu.deepresearch.delete(other))
    check(task_id != other, "same task")


def deepresearch_toggle_public():
    task_id = completed_task().deepresearch_id
    response = ok(valyu.deepresearch.toggle_public(task_id, True))
    check(response.public is True, "not public")


def deepresearch_get_assets():
    task = completed_task()
    image = task.images[0]
    data = valyu.deepresearch.get_assets(task.deepresearch_id, image.image_id)
    check(data[1:4] == b"PNG", "not a PNG")


def deepresearch_respond():
    task_id = create_task(query=QUERY, mode="fast", hitl={"plan_review": True})
    status = until(task_id, lambda current: current.status in ("awaiting_input", "paused") and current.interaction is not None)
    ok(valyu.deepresearch.approve_plan(task_id, status.interaction.interaction_id))
    until(task_id, lambda current: current.status == "completed")


# ---- batches -------------------------------------------------------------------------------------


def batch_flow_create():
    created = ok(valyu.batch.create(name="conformance", mode="max", metadata={"run": "py"}))
    state["batch_id"] = created.batch_id


def batch_add_tasks():
    added = ok(valyu.batch.add_tasks(state["batch_id"], [{"id": "plant-1", "query": "Plant 1"}, {"query": "Plant 2"}]))
    check(len(added.tasks) == 2 if getattr(added, "tasks", None) is not None else added.added == 2, f"added {added}")


def batch_status():
    status = ok(valyu.batch.status(state["batch_id"]))
    check(status.batch.counts.total == 2, f"counts {status.batch.counts}")


def batch_list_tasks():
    page = ok(valyu.batch.list_tasks(state["batch_id"], include_output=True))
    check(len(page.tasks) == 2, f"tasks {page.tasks}")


def batch_list():
    response = ok(valyu.batch.list(limit=10))
    check(any(batch.batch_id == state["batch_id"] for batch in response.batches), "batch not listed")


def batch_cancel():
    ok(valyu.batch.cancel(state["batch_id"]))


# ---- workflows -----------------------------------------------------------------------------------


def workflows_list_get_versions():
    listed = ok(valyu.workflows.list(scope="all"))
    check(any(item.slug == "company-profile" for item in listed.workflows), "company-profile not listed")
    check(ok(valyu.workflows.get("company-profile")).workflow.slug == "company-profile", "get")
    versions = ok(valyu.workflows.versions("company-profile")).versions
    check([item.version for item in versions if item.is_current] == [2], "current version")


def workflows_preview():
    preview = ok(valyu.workflows.preview("company-profile", workflow_params={"company": "Acme"}))
    check("Acme" in preview.resolved.input, "params not resolved")
    template = ok(valyu.workflows.preview("company-profile"))
    check("{{company}}" in template.resolved.input, "a preview without params does not show the template")


def workflows_create_update_delete():
    ok(valyu.workflows.create(slug="py-census", title="Census", version={"prompt": "List plants in {{region}}.", "strategy": "", "report_format": "", "variables": [{"key": "region", "type": "text"}]}))
    updated = ok(valyu.workflows.update("py-census", title="Census (EU)"))
    check(updated.workflow.title == "Census (EU)", "title not updated")
    ok(valyu.workflows.delete("py-census"))


def workflow_task():
    task_id = create_task(workflow_id="company-profile", workflow_params={"company": "Acme"}, mode="fast")
    check(ok(valyu.deepresearch.status(task_id)).deepresearch_id == task_id, "workflow task")


CASES = [
    search_ranked,
    search_structured,
    contents_sync,
    contents_async_job,
    contents_wait_for_job,
    contents_job_unknown,
    answer_collected,
    answer_streamed,
    datasources_list,
    datasources_categories,
    deepresearch_create_status,
    deepresearch_wait,
    deepresearch_list,
    deepresearch_update,
    deepresearch_cancel,
    deepresearch_delete,
    deepresearch_toggle_public,
    deepresearch_get_assets,
    deepresearch_respond,
    batch_flow_create,
    batch_add_tasks,
    batch_status,
    batch_list_tasks,
    batch_list,
    batch_cancel,
    workflows_list_get_versions,
    workflows_preview,
    workflows_create_update_delete,
    workflow_task,
]


def main():
    results = []
    for case in CASES:
        try:
            case()
            results.append({"name": case.__name__, "outcome": "pass"})
        except ExpectedFailure as reason:
            results.append({"name": case.__name__, "outcome": "xfail", "reason": str(reason)})
        except Exception as error:  # a failed case is reported, the run goes on
            detail = f"{type(error).__name__}: {error}"
            if isinstance(error, AttributeError) or (isinstance(error, TypeError) and "unexpected keyword argument" in detail):
                # An older release without this method or option: not a verdict on the emulator.
                results.append({"name": case.__name__, "outcome": "unsupported", "detail": detail})
            elif SUCCESS_CONFLICT in detail:
                results.append({"name": case.__name__, "outcome": "xfail", "reason": SUCCESS_CONFLICT_REASON})
            else:
                results.append({"name": case.__name__, "outcome": "fail", "detail": detail, "trace": traceback.format_exc(limit=3)})
    json.dump({"client": "valyu-py", "version": version("valyu"), "results": results}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
