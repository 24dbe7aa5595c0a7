// The console's shell: sign in, the role, the pages (by the URL's fragment), the notice line and
// the poll that keeps the open page current.
import { session, roleOf, explain } from "./api.js";
import * as rollouts from "./rollouts.js";
import * as screens from "./screens.js";
import * as experiments from "./experiments.js";
import * as changes from "./changes.js";
import * as explainPage from "./explain.js";
import * as audit from "./audit.js";

const pages = { rollouts, screens, experiments, changes, explain: explainPage, audit };
const pollMilliseconds = 3000;
const $ = (id) => document.getElementById(id);

const context = {
  role: "read",
  get canWrite() { return this.role !== "read"; },
  get canApprove() { return this.role === "approve"; },
  notify,
  // Writes in flight: the poll waits for them, so it never reports the page's own change as another's.
  busy: 0,
  async writing(work) {
    this.busy++;
    try { return await work(); } finally { this.busy--; }
  },
};
let current = null;
let timer = null;

function notify(text, kind = "ok") {
  const notice = $("notice");
  notice.textContent = text;
  notice.className = `notice ${kind}`;
  notice.hidden = !text;
}

async function signIn(token) {
  context.role = await roleOf(token);
  session.token = token;
  $("sign-in").hidden = true;
  $("nav").hidden = false;
  $("sign-out").hidden = false;
  $("who").hidden = false;
  $("who").textContent = `Signed in with ${context.role === "approve" ? "an" : "a"} ${context.role} token`;
  const note = $("role-note");
  note.hidden = context.canWrite;
  note.textContent = context.canWrite ? "" :
    "This token has the read role: you see everything, and the controls that change things are disabled. Sign in with a write token to change rollouts and screens.";
  if (!location.hash) location.hash = context.canApprove ? "#changes" : "#rollouts"; // hashchange shows it
  else await show();
}

function signOut() {
  session.token = null;
  location.hash = "";
  location.reload();
}

async function show() {
  if (!session.token) return;
  const name = location.hash.slice(1) || "rollouts";
  const page = pages[name] || rollouts;
  for (const link of $("nav").querySelectorAll("a")) {
    if (link.getAttribute("href") === `#${name}`) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  clearInterval(timer);
  notify("");
  // A container of its own: a page still loading from an earlier visit fills one nobody sees.
  const container = document.createElement("div");
  $("page").replaceChildren(container);
  $("page").hidden = false;
  current = page;
  try {
    await page.render(container, context);
  } catch (error) {
    notify(explain(error, "Loading the page"), "error");
  }
  timer = setInterval(poll, pollMilliseconds);
}

async function poll() {
  if (!current?.poll || document.hidden || context.busy) return;
  try {
    await current.poll();
  } catch (error) {
    if (error.status === 401) signOut();
  }
}

$("sign-in-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = $("sign-in-error");
  error.hidden = true;
  try {
    await signIn($("token").value.trim());
    $("token").value = "";
  } catch (problem) {
    error.textContent = explain(problem, "Signing in");
    error.hidden = false;
  }
});
$("sign-out").addEventListener("click", signOut);
window.addEventListener("hashchange", show);

if (session.token) {
  signIn(session.token).catch(() => { session.token = null; });
}
