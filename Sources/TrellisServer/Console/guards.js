// A guard (docs/operations.md, "Guard a rollout or a staged revision"): what stops a rollout or a
// screen's staged revision when the users who got it fare worse than those who did not. The view:
// its checks, the users an arm needs, the action and α, and what it saw when this replica last
// looked. The form (write tokens only) sets or replaces it — If-Match: the version the form was
// filled from — or removes it; a 422's problems are listed beside it at their JSON paths, and the
// fields they name marked.
import { call, get, describeWrite, explain, problemText, ApiError } from "./api.js";
import { h, when, confirmDialog } from "./dom.js";

// Figures as the health and guard views write them (console-check reads them back).
export const count = (n) => (n ?? 0).toLocaleString("en-US");
export const percent = (x) => (x === null || x === undefined ? "—" : `${(100 * x).toFixed(2)}%`);
const minus = "\u2212";
const signedPercent = (x) => (x === null || x === undefined ? "—" : `${x > 0 ? "+" : x < 0 ? minus : ""}${Math.abs(100 * x).toFixed(2)}%`);
const number = (x) => (x === null || x === undefined ? "—" : x.toLocaleString("en-US", { maximumSignificantDigits: 4 }));
// 0.1 as "10%": a tolerance is a relative change.
const relative = (x) => `${Number((100 * x).toFixed(2))}%`;

const verdicts = { noRegression: "no regression", regression: "regression", insufficient: "not decided (insufficient)" };
const directions = [["", "the metric's own"], ["rise", "a rise"], ["fall", "a fall"]];
const renderFailures = "render-failures";
const maximumChecks = 10;

// GuardView's members that are the guard itself; the rest is what it saw (and changes every look).
export const guardJSON = (view) => (view ? JSON.stringify([view.checks, view.minimumUsers, view.action, view.alpha]) : "none");

// The guard of `rollouts/KEY` or `screens/ID`: { element, load(), refresh(), view }.
//   prefix: the fields' ids (`${prefix}-alpha`, `${prefix}-check-0-metric`, …), unique on the page.
//   arm(variant): a side of the last look in words (`revision 5`, `admitted`).
//   guarded: what the guard stops, for sentences ("the staged revision of home").
//   onLoad(view): told what is shown after each load (null: no guard).
export function guardPanel({ kind, key }, context, { prefix, arm, guarded, onLoad = () => {} }) {
  const path = `/admin/${kind}/${encodeURIComponent(key)}/guard`;
  const resource = `${kind}/${key}`;
  const actions = kind === "screens"
    ? { halt: "halt: abandon the staged revision", hold: "hold: abandon nothing, only look" }
    : { halt: "halt: kill the rollout, its schedule with it", hold: "hold: kill nothing; a scheduled ramp waits for a look that finds no regression" };
  const viewHolder = h("div", { class: "guard-view" });
  const formHolder = h("div");
  const element = h("div", { class: "guard", "data-guard": resource }, viewHolder, formHolder);
  // What is shown: { view, etag }, or null when there is no guard.
  let shown = null;
  let metricNames = [];
  // The form shown: the version it was filled from (If-Match of its Save and Remove; null: it sets
  // a new guard) and its note; null for a read token.
  let filled = null;

  // { view, etag } from the server, or null. The guard itself is asked for only when the list
  // names it: a 404 is a failed load, which the browser logs.
  async function fetchGuard() {
    const listed = (await get("/admin/guards")).body.guards.some((view) => view.guards === resource);
    if (!listed) return null;
    try {
      const answer = await get(path);
      return { view: answer.body, etag: answer.etag };
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null; // removed meanwhile
      throw error;
    }
  }

  // The guard and the form, afresh (an edit in the form is dropped).
  async function load() {
    try {
      const [guard, metrics] = await Promise.all([fetchGuard(), context.canWrite ? get("/admin/metrics") : null]);
      shown = guard;
      if (metrics) metricNames = metrics.body.metrics.map((metric) => metric.name);
      drawView();
      drawForm();
    } catch (error) {
      viewHolder.replaceChildren(h("p", { class: "error" }, explain(error, `Loading the guard of ${key}`)));
      formHolder.replaceChildren();
    }
    onLoad(shown?.view ?? null);
  }

  // The guard and what it saw, afresh; the form keeps its edit, and says so when the guard changed.
  async function refresh() {
    try {
      shown = await fetchGuard();
    } catch (error) {
      context.notify(explain(error, `Loading the guard of ${key}`), "error");
      return;
    }
    drawView();
    const now = shown?.etag ?? null;
    if (filled && now !== filled.etag) {
      const why = filled.etag ? "The guard changed since this form was filled: saving will be refused (412). "
        : "Someone set a guard since this form was filled: saving replaces theirs. ";
      filled.note.replaceChildren(why,
        h("button", { type: "button", onclick: () => load().then(() => context.notify("")) }, `Reload the guard of ${key}`));
    }
    onLoad(shown?.view ?? null);
  }

  function drawView() {
    const view = shown?.view;
    const refreshButton = h("button", { type: "button", id: `${prefix}-refresh`, onclick: refresh }, `Refresh the guard of ${key}`);
    if (!view) {
      viewHolder.replaceChildren(h("p", { class: "guard-none" }, `No guard: nothing stops ${guarded} on evidence. `), refreshButton);
      return;
    }
    viewHolder.replaceChildren(
      h("table", { class: "grid compact guard-checks" },
        h("caption", {}, `The checks of the guard of ${key}`),
        h("thead", {}, h("tr", {}, ["Metric", "Tolerated change", "Bad direction"].map((name) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, view.checks.map((check) => h("tr", { "data-metric": check.metric },
          h("th", { scope: "row" }, h("span", { class: "key" }, check.metric)),
          h("td", { class: "tolerance" }, `${relative(check.tolerance)} worse`),
          h("td", { class: "bad" }, check.bad ? `a ${check.bad}` : "the metric's own"))))),
      h("p", { class: "guard-settings" },
        `At least ${count(view.minimumUsers)} users in each arm before anything is decided. On a regression: ${actions[view.action] ?? view.action}. α = ${view.alpha}.`),
      evaluation(view.lastEvaluation, arm),
      refreshButton);
  }

  function drawForm() {
    if (!context.canWrite) {
      filled = null;
      formHolder.replaceChildren(h("p", { class: "hint" }, "A token with the write role may set, replace or remove this guard."));
      return;
    }
    const view = shown?.view;
    const metricOptions = kind === "screens" ? [renderFailures, ...metricNames] : metricNames;
    // The checks as text, read back from the fields before a row is added or removed.
    let checks = view
      ? view.checks.map((check) => ({ metric: check.metric, tolerance: String(check.tolerance), bad: check.bad || "" }))
      : [{ metric: metricOptions[0] ?? "", tolerance: "0.1", bad: "" }];
    let rows = [];
    const rowsHolder = h("div", { class: "guard-check-rows" });
    const add = h("button", { type: "button", id: `${prefix}-add-check` }, "Add a check");
    const readChecks = () => rows.map((row) => ({ metric: row.metric.value, tolerance: row.tolerance.value, bad: row.bad.value }));
    const drawRows = () => {
      rows = checks.map((check, index) => {
        const id = `${prefix}-check-${index}`;
        const names = metricOptions.includes(check.metric) || !check.metric ? metricOptions : [check.metric, ...metricOptions];
        const row = {
          metric: h("select", { id: `${id}-metric` }, names.map((name) => h("option", { value: name, selected: name === check.metric }, name))),
          tolerance: h("input", { id: `${id}-tolerance`, type: "number", min: 0, max: 10, step: "any", value: check.tolerance }),
          bad: h("select", { id: `${id}-bad` }, directions.map(([value, label]) => h("option", { value, selected: value === check.bad }, label))),
        };
        const remove = h("button", {
          type: "button", disabled: checks.length === 1,
          onclick: () => { checks = readChecks(); checks.splice(index, 1); drawRows(); rows[Math.min(index, rows.length - 1)].metric.focus(); },
        }, `Remove check ${index + 1}`);
        row.element = h("div", { class: "inline-form check-row", role: "group", "aria-label": `Check ${index + 1}`, "data-check": index },
          h("label", { for: row.metric.id }, `Check ${index + 1}: metric`), row.metric,
          h("label", { for: row.tolerance.id }, "tolerated change (0.1 is 10 % worse)"), row.tolerance,
          h("label", { for: row.bad.id }, "bad direction"), row.bad,
          remove);
        return row;
      });
      rowsHolder.replaceChildren(...rows.map((row) => row.element));
      add.disabled = checks.length >= maximumChecks;
    };
    add.addEventListener("click", () => {
      checks = [...readChecks(), { metric: metricOptions[0] ?? "", tolerance: "0.1", bad: "" }];
      drawRows();
      rows.at(-1).metric.focus();
    });
    drawRows();
    const minimumUsers = h("input", { id: `${prefix}-minimum-users`, type: "number", min: 2, step: 1, value: String(view?.minimumUsers ?? 1000) });
    const action = h("select", { id: `${prefix}-action` },
      Object.entries(actions).map(([value, label]) => h("option", { value, selected: value === (view?.action ?? "halt") }, label)));
    const alpha = h("input", { id: `${prefix}-alpha`, type: "number", min: 0, max: 0.5, step: "any", value: String(view?.alpha ?? 0.05) });
    const note = h("p", { id: `${prefix}-note`, class: "row-note", role: "status" });
    const errors = h("ol", { id: `${prefix}-errors`, class: "errors", "aria-label": `Problems in the guard of ${key}` });
    filled = { etag: shown?.etag ?? null, note };
    const fields = () => ({ minimumUsers, action, alpha });
    // The server checks the values (a 422 lists each problem at its path): the browser's own checks
    // would stop some with a message of their own, others not at all.
    const formElement = h("form", { class: "guard-form", novalidate: true, "aria-labelledby": `${prefix}-form-title` },
      h("h4", { id: `${prefix}-form-title` }, view ? `Replace or remove the guard of ${key}` : `Set a guard on ${key}`),
      h("p", { class: "hint" }, view
        ? "Saving replaces the guard shown above, only if nobody changed it since (If-Match)."
        : kind === "screens"
          ? "render-failures is the share of a revision's users whose app sent a render beacon for the screen; any metric may be checked too."
          : "Each check is a metric (Experiments, Metrics) compared between the users the rollout admits and those it does not."),
      metricOptions.length ? null : h("p", { class: "hint" }, "No metrics are defined yet: define one on the Experiments page first."),
      rowsHolder,
      h("div", { class: "inline-form" }, add),
      h("div", { class: "inline-form" },
        h("label", { for: minimumUsers.id }, "Minimum users in each arm"), minimumUsers,
        h("label", { for: action.id }, "On a regression"), action,
        h("label", { for: alpha.id }, "α (the chance of a false halt)"), alpha),
      errors,
      note,
      h("div", { class: "inline-form" },
        h("button", { type: "submit", id: `${prefix}-save` }, `Save the guard of ${key}`),
        view ? h("button", { type: "button", id: `${prefix}-remove`, class: "danger", onclick: remove }, `Remove the guard of ${key}`) : null));
    formElement.addEventListener("submit", (event) => {
      event.preventDefault();
      save(payload(readChecks(), fields()), { rows, fields: fields(), errors, note });
    });
    formHolder.replaceChildren(formElement);
  }

  // PUT the guard; `parts`: the form's rows, fields, problem list and note.
  async function save(body, parts) {
    const what = `${filled.etag ? "Replacing" : "Setting"} the guard of ${key}`;
    clearProblems(parts);
    await context.writing(async () => {
      try {
        const result = await call("PUT", path, { body, ifMatch: formVersion() });
        context.notify(describeWrite(result, what), result.status === 202 ? "info" : "ok");
        await load();
      } catch (error) {
        context.notify(explain(error, what), "error");
        showProblems(error, parts);
        if (error.status === 412) {
          parts.note.replaceChildren("Someone else changed this guard first. ",
            h("button", { type: "button", onclick: () => load().then(() => context.notify("")) }, `Reload the guard of ${key}`));
        }
      }
    });
  }

  async function remove() {
    const sure = await confirmDialog(`Remove the guard of ${key}?`,
      `Nothing stops ${guarded} on evidence any more, from now on.`, "Remove the guard");
    if (!sure) return;
    const what = `Removing the guard of ${key}`;
    await context.writing(async () => {
      try {
        const result = await call("DELETE", path, { ifMatch: formVersion() });
        context.notify(describeWrite(result, what), result.status === 202 ? "info" : "ok");
        await load();
      } catch (error) {
        context.notify(explain(error, what), "error");
      }
    });
  }

  const formVersion = () => filled?.etag ?? undefined;

  return { element, load, refresh, get view() { return shown?.view ?? null; } };
}

// The PUT body, from the form's text: an empty or unreadable number goes as null, for the server
// to say what it expects.
function payload(checks, { minimumUsers, action, alpha }) {
  const numberOf = (text) => (text.trim() === "" || Number.isNaN(Number(text)) ? null : Number(text));
  return {
    checks: checks.map((check) => {
      const member = { metric: check.metric, tolerance: numberOf(check.tolerance) };
      if (check.bad) member.bad = check.bad;
      return member;
    }),
    minimumUsers: numberOf(minimumUsers.value), action: action.value, alpha: numberOf(alpha.value),
  };
}

// A 422's problems under the form, each field they name marked invalid.
function showProblems(error, { rows, fields, errors }) {
  for (const problem of error?.problem?.errors || []) {
    errors.append(h("li", {}, problemText(problem)));
    const check = /^\$\.checks\[(\d+)\]\.(metric|tolerance|bad)$/.exec(problem.path || "");
    const member = /^\$\.(minimumUsers|action|alpha)$/.exec(problem.path || "");
    const field = check ? rows[Number(check[1])]?.[check[2]] : member ? fields[member[1]] : null;
    if (field) {
      field.setAttribute("aria-invalid", "true");
      field.setAttribute("aria-describedby", errors.id);
    }
  }
}

function clearProblems({ rows, fields, errors, note }) {
  errors.replaceChildren();
  note.replaceChildren();
  for (const field of [...rows.flatMap((row) => [row.metric, row.tolerance, row.bad]), ...Object.values(fields)]) {
    field.removeAttribute("aria-invalid");
    field.removeAttribute("aria-describedby");
  }
}

// What the guard saw when this replica last looked (GuardEvaluation's JSON), or why it has not.
function evaluation(seen, arm) {
  if (!seen) {
    return h("p", { class: "guard-evaluation-none" },
      "Not looked at yet on this replica. A guard looks every few seconds while there is something to guard, on the replica that holds the guards lease.");
  }
  const treatment = arm(seen.treatment);
  const control = arm(seen.control);
  const figure = (name, text) => h("td", { class: `figure ${name}` }, text);
  return h("div", { class: "guard-evaluation", "data-verdict": seen.verdict },
    h("p", {}, `Last look, ${when(seen.at)}: `, h("strong", { class: `verdict-${seen.verdict}` }, verdicts[seen.verdict] ?? seen.verdict),
      ` — ${treatment} (treatment) against ${control} (control).`),
    h("table", { class: "grid compact guard-evaluation-table" },
      h("caption", {}, `Each check at the last look: ${treatment} · ${control}`),
      h("thead", {}, h("tr", {}, ["Metric", "Verdict", "Users", "Means", "Lift", "Bound", "Threshold"].map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, seen.checks.map((check) => h("tr", { "data-metric": check.metric },
        h("th", { scope: "row" }, h("span", { class: "key" }, check.metric)),
        h("td", { class: "verdict" }, check.problem ?? [verdicts[check.verdict] ?? check.verdict, check.reason ? h("span", { class: "description" }, check.reason) : null]),
        figure("users", check.problem ? "—" : `${count(check.treatmentUsers)} · ${count(check.controlUsers)}`),
        figure("means", check.problem ? "—" : `${number(check.treatmentMean)} · ${number(check.controlMean)}`),
        figure("lift", signedPercent(check.lift)),
        figure("bound", signedPercent(check.bound)),
        figure("threshold", signedPercent(check.threshold)))))));
}
