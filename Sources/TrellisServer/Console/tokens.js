// Tokens (an admin token's page): every admin token with its role, where it comes from, who made it
// and when it was last used here; make one (shown this once) or delete one made here. The tokens of
// server.json are the bootstrap set: listed, never deleted here.
import { call, get, describeWrite, explain } from "./api.js";
import { h, when, confirmDialog } from "./dom.js";

const roles = ["read", "write", "approve", "admin"];
let context;
let body;
let made;
// The list as shown, without when each token was last used (that changes with every request,
// this page's own included), to tell a change someone made.
let shownJSON = "";
// Tokens and webhooks are no published changes, so the change stream says nothing of them.
export const polled = true;

export async function render(container, ctx) {
  context = ctx;
  body = h("tbody");
  made = h("div", { id: "token-made", role: "status" });
  container.append(
    h("h2", {}, "Tokens"),
    h("table", { class: "grid", "aria-describedby": "tokens-caption" },
      h("caption", { id: "tokens-caption" }, "Every admin token; never the token itself, nor its hash. Last used: on this replica, since it started."),
      h("thead", {}, h("tr", {}, ["Name", "Role", "Source", "Made", "Last used", "Actions"].map((name) => h("th", { scope: "col" }, name)))),
      body),
    createForm(),
    made);
  await load();
}

export async function poll() {
  const tokens = (await get("/admin/tokens")).body.tokens;
  if (comparable(tokens) === shownJSON) return false;
  draw(tokens);
  context.notify("The tokens changed.", "info");
  return true;
}

const comparable = (tokens) => JSON.stringify(tokens.map(({ lastUsedAt, ...rest }) => rest));

async function load() {
  draw((await get("/admin/tokens")).body.tokens);
}

function draw(tokens) {
  shownJSON = comparable(tokens);
  body.replaceChildren(...tokens.map((token) => h("tr", { "data-token": token.name },
    h("th", { scope: "row" }, h("span", { class: "key" }, token.name), token.name === context.name ? h("span", { class: "description" }, "this token") : null),
    h("td", {}, token.role),
    h("td", {}, token.source === "config" ? "server.json" : "made here"),
    h("td", {}, token.createdBy ? `by ${token.createdBy}, ${when(token.createdAt)}` : "—"),
    h("td", {}, when(token.lastUsedAt)),
    h("td", {}, token.source === "config"
      ? h("span", { class: "hint" }, "Remove it from server.json and restart")
      : h("button", { type: "button", class: "danger", onclick: () => remove(token) }, `Delete ${token.name}`)))));
}

async function remove(token) {
  const self = token.name === context.name ? " This is the token you are signed in with: the console stops working with it at once." : "";
  const sure = await confirmDialog(`Delete token ${token.name}?`,
    `Requests with ${token.name} (${token.role}) fail from the next one on, on every replica.${self}`, `Delete ${token.name}`);
  if (!sure) return;
  const what = `Deleting token ${token.name}`;
  await context.writing(async () => {
    try {
      const result = await call("DELETE", `/admin/tokens/${encodeURIComponent(token.name)}`);
      made.replaceChildren();
      await load();
      context.notify(describeWrite(result, what), "ok");
    } catch (error) {
      context.notify(explain(error, what), "error");
    }
  });
}

function createForm() {
  const name = h("input", { id: "new-token-name", required: true, pattern: "[A-Za-z0-9_.\\-]{1,64}", autocomplete: "off" });
  const role = h("select", { id: "new-token-role" }, roles.map((value) => h("option", { value, selected: value === "read" }, value)));
  const form = h("form", { class: "inline-form", "aria-labelledby": "new-token-title" },
    h("h3", { id: "new-token-title" }, "New token"),
    h("label", { for: "new-token-name" }, "Name (who uses it, as the audit log shows it)"), name,
    h("label", { for: "new-token-role" }, "Role"), role,
    h("button", { type: "submit" }, "Make token"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const payload = { name: name.value.trim(), role: role.value };
    const what = `Making token ${payload.name}`;
    context.writing(async () => {
      try {
        const result = await call("POST", "/admin/tokens", { body: payload });
        form.reset();
        await load();
        showMade(result.body);
        context.notify(describeWrite(result, what), "ok");
      } catch (error) {
        context.notify(explain(error, what), "error");
      }
    });
  });
  return form;
}

// The token itself, which the server answers this once and keeps only the hash of.
function showMade(token) {
  const field = h("input", { id: "token-secret", readonly: true, value: token.token, size: 60, spellcheck: "false", autocomplete: "off" });
  made.replaceChildren(h("div", { class: "notice info" },
    h("p", {}, `Token ${token.name} (${token.role}) is made. Copy it now: it is shown this once, and the server keeps only its hash.`),
    h("label", { for: "token-secret" }, "Token"), " ", field,
    " ", h("button", { type: "button", onclick: () => made.replaceChildren() }, "Done, hide it")));
  field.select();
}
