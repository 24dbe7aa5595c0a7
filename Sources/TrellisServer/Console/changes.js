// Change requests: pending, approved, rejected, stale (and the rest); approve or reject with a
// comment. Only a token with the approve role decides, and never on its own request.
import { call, get, describeWrite, explain } from "./api.js";
import { h, when, uid } from "./dom.js";

const statuses = ["pending", "approved", "rejected", "stale", "applied", "failed", "cancelled"];
let context;
let status = "pending";
let list;
let filter;
let shownJSON = "";
// The change stream carries published changes, not requests waiting for approval: poll this page.
export const polled = true;

export async function render(container, ctx) {
  context = ctx;
  list = h("div", { id: "changes-list" });
  filter = h("div", { class: "tabs", role: "group", "aria-label": "Status" },
    statuses.map((name) => h("button", { type: "button", "data-status": name, onclick: () => { status = name; load(); } }, name)));
  container.append(h("h2", {}, "Change requests"), filter, list);
  await load();
}

export async function poll() {
  const changes = (await get(`/admin/changes?status=${status}`)).body.changes;
  if (JSON.stringify(changes) !== shownJSON) {
    draw(changes);
    context.notify(`The ${status} change requests changed.`, "info");
    return true;
  }
  return false;
}

async function load() {
  for (const button of filter.querySelectorAll("button")) button.setAttribute("aria-pressed", String(button.dataset.status === status));
  draw((await get(`/admin/changes?status=${status}`)).body.changes);
}

function draw(changes) {
  shownJSON = JSON.stringify(changes);
  if (!changes.length) {
    list.replaceChildren(h("p", {}, `No ${status} change requests.`));
    return;
  }
  list.replaceChildren(...changes.slice().reverse().map(card));
}

function card(change) {
  const query = Object.entries(change.query || {}).map(([name, value]) => `${name}=${value}`).join("&");
  const parts = [
    h("h3", {}, `#${change.id}: ${change.method} ${change.path}${query ? "?" + query : ""}`),
    h("p", {}, `By ${change.author}, ${when(change.createdAt)}. Status: ${change.status}.`,
      change.applyAt ? ` Applies at ${when(change.applyAt)}.` : "", change.comment ? ` “${change.comment}”` : ""),
    change.body ? h("pre", { class: "body" }, change.body) : null,
    change.reviews.map((review) => h("p", {}, `${review.verdict} by ${review.by}, ${when(review.at)}`, review.comment ? `: “${review.comment}”` : "")),
    change.outcome ? h("p", { class: "outcome" }, change.outcome) : null,
  ];
  if (change.status === "pending") parts.push(decision(change));
  return h("article", { class: "change", "data-change": change.id, "aria-label": `Change request ${change.id}` }, parts);
}

function decision(change) {
  const id = uid("comment");
  const comment = h("input", { id, disabled: !context.canApprove });
  const decide = (verb) => () => context.writing(async () => {
    const what = `${verb === "approve" ? "Approving" : "Rejecting"} change request #${change.id}`;
    const payload = comment.value.trim() ? { comment: comment.value.trim() } : {};
    try {
      // The version shown is the one decided: an edit since makes the server refuse (412).
      const result = await call("POST", `/admin/changes/${change.id}/${verb}`, { body: payload, ifMatch: change.version });
      await load();
      context.notify(describeWrite(result, what), "ok");
    } catch (error) {
      context.notify(explain(error, what), "error");
      await load();
    }
  });
  const note = context.canApprove ? null : h("p", { class: "hint" }, "Deciding needs a token with the approve role.");
  return h("div", { class: "inline-form" },
    h("label", { for: id }, `Comment on #${change.id}`), comment,
    h("button", { type: "button", disabled: !context.canApprove, onclick: decide("approve") }, `Approve #${change.id}`),
    h("button", { type: "button", class: "danger", disabled: !context.canApprove, onclick: decide("reject") }, `Reject #${change.id}`),
    note);
}
