// Explain: one user's context in, every decision of a screen out (GET /admin/explain), and the
// screen drawn as that user sees it.
import { get } from "./api.js";
import { h } from "./dom.js";
import { viewportFields, previewFrame } from "./preview.js";

let form;
let result;
let fields;
let viewport;

export async function render(container) {
  const screens = (await get("/admin/screens")).body.screens;
  fields = {
    screen: h("select", { id: "explain-screen" }, screens.map((screen) => h("option", { value: screen.id }, screen.id))),
    user: h("input", { id: "explain-user", value: "u1", required: true }),
    platform: h("select", { id: "explain-platform" }, ["ios", "android", "web"].map((name) => h("option", { value: name }, name))),
    appVersion: h("input", { id: "explain-app-version", placeholder: "5.3" }),
    attributes: h("input", { id: "explain-attributes", placeholder: "membership=gold, email=a@example.com", size: 40 }),
  };
  viewport = viewportFields("explain");
  form = h("form", { class: "inline-form", "aria-label": "Who to explain" },
    h("label", { for: "explain-screen" }, "Screen"), fields.screen,
    h("label", { for: "explain-user" }, "User id"), fields.user,
    h("label", { for: "explain-platform" }, "Platform"), fields.platform,
    h("label", { for: "explain-app-version" }, "App version"), fields.appVersion,
    h("label", { for: "explain-attributes" }, "Attributes (name=value, comma-separated)"), fields.attributes,
    viewport.elements,
    h("button", { type: "submit" }, "Explain"));
  form.addEventListener("submit", (event) => { event.preventDefault(); explainNow(); });
  result = h("div", { id: "explanation" });
  container.append(h("h2", {}, "Explain"), form, result);
  await explainNow();
}

// The context as query parameters, as /v1/screens/{id} and /preview/{id} take it.
function context() {
  const query = new URLSearchParams({ user: fields.user.value.trim(), platform: fields.platform.value });
  if (fields.appVersion.value.trim()) query.set("appVersion", fields.appVersion.value.trim());
  for (const pair of fields.attributes.value.split(",")) {
    const [name, ...rest] = pair.split("=");
    if (name.trim() && rest.length) query.set(`attr.${name.trim()}`, rest.join("=").trim());
  }
  return query;
}

async function explainNow() {
  const query = context();
  const screen = fields.screen.value;
  const answer = (await get(`/admin/explain?screen=${encodeURIComponent(screen)}&${query}`)).body;
  const staged = answer.staged
    ? ` Revision ${answer.staged.revision} is staged to ${answer.staged.percentage}%: this user ${answer.staged.admitted ? "gets it" : "does not"}` +
      (answer.staged.position !== undefined ? ` (position ${answer.staged.position}).` : ".")
    : "";
  result.replaceChildren(
    h("p", { id: "explain-summary" }, `User ${fields.user.value} gets revision ${answer.revision} of ${screen}.${staged}`),
    h("h3", {}, "Decisions"),
    answer.decisions.length ? h("ul", { class: "tree" }, answer.decisions.map(decision)) : h("p", {}, "This revision has no decision points."),
    h("h3", {}, "Rollouts"),
    answer.rollouts.length
      ? h("table", { class: "grid" },
        h("thead", {}, h("tr", {}, ["Rollout", "Admitted", "Percentage", "Bucket", "Position", "Why"].map((name) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, answer.rollouts.map(({ key, decision }) => h("tr", {},
          h("th", { scope: "row" }, key), h("td", {}, decision.admitted ? "yes" : "no"), h("td", {}, decision.percentage ?? "—"),
          h("td", {}, decision.bucket ?? "—"), h("td", {}, decision.position ?? "—"), h("td", {}, decision.why || decision.reason)))))
      : h("p", {}, "This revision uses no rollout."),
    h("h3", {}, "As this user sees it"),
    previewFrame(screen, viewport.apply(query), `as user ${fields.user.value}`));
}

function decision(point) {
  const label = point.kind === "rule"
    ? `Rule at ${point.id || point.path}: ${point.reached ? (point.value ? "true" : "false") : "not reached"}`
    : `Experiment ${point.experiment} at ${point.id || point.path}: ${point.reached ? `shows ${point.shows ?? "nothing"}` : "not reached"}` +
      (point.decision ? ` (${point.decision.why || point.decision.reason})` : "");
  return h("li", {}, label, point.explanation ? h("ul", {}, explanation(point.explanation)) : null);
}

function explanation(node) {
  const value = node.evaluated === false ? "not evaluated" : String(node.value);
  return h("li", {}, `${value}: ${node.why}`, node.children?.length ? h("ul", {}, node.children.map(explanation)) : null);
}
