// The console's shell: sign in, the role, the pages (by the URL's fragment), the notice line and
// what keeps the open page current: the change stream (GET /v1/changes), each event refreshing
// the page, with a banner when what it shows was changed by someone else; polling every 3 s only
// while the stream is down (and for the pages the stream does not carry: change requests, tokens,
// webhooks).
import { session, whoAmI, explain } from "./api.js";
import * as rollouts from "./rollouts.js";
import * as screens from "./screens.js";
import * as experiments from "./experiments.js";
import * as rules from "./rules.js";
import * as targeting from "./targeting.js";
import * as routes from "./routes.js";
import * as strings from "./strings.js";
import * as changes from "./changes.js";
import * as explainPage from "./explain.js";
import * as audit from "./audit.js";
import * as tokens from "./tokens.js";
import * as webhooks from "./webhooks.js";

// A page may take an argument after a slash (#results/home-hero: the results of home-hero) and
// name the page of the navigation it belongs to (`navigation`).
const pages = { rollouts, screens, experiments, results: experiments.results, rules, targeting, routes, strings, changes, explain: explainPage, audit, tokens, webhooks };
// Pages for an admin token only: the API refuses the others (403), so they are not offered.
const adminPages = new Set(["tokens", "webhooks"]);
const pollMilliseconds = 3000;
const $ = (id) => document.getElementById(id);

const context = {
  name: "",
  role: "read",
  get canWrite() { return this.role !== "read"; },
  get canApprove() { return this.role === "approve" || this.role === "admin"; },
  get isAdmin() { return this.role === "admin"; },
  notify,
  // Writes in flight: the poll waits for them, so it never reports the page's own change as another's.
  busy: 0,
  async writing(work) {
    this.busy++;
    try { return await work(); } finally {
      this.busy--;
      // An event that came while the page wrote: refresh now, when the page shows its own write.
      if (!this.busy && pendingEvent) refresh(true);
    }
  },
};
let current = null;
let timer = null;
// The change stream: null until signed in; live is true while it is open.
let stream = null;
let live = false;
let pendingEvent = false;
let refreshing = null;
// False while the page renders: an event then waits for it, so the refresh never redraws a page
// half built.
let ready = false;
let opened = false;

function notify(text, kind = "ok") {
  const notice = $("notice");
  notice.textContent = text;
  notice.className = `notice ${kind}`;
  notice.hidden = !text;
}

async function signIn(token) {
  const { name, role } = await whoAmI(token);
  context.name = name;
  context.role = role;
  session.token = token;
  $("sign-in").hidden = true;
  $("nav").hidden = false;
  for (const link of $("nav").querySelectorAll("a")) {
    if (adminPages.has(link.getAttribute("href").slice(1)) && !context.isAdmin) link.remove();
  }
  $("sign-out").hidden = false;
  $("who").hidden = false;
  $("who").textContent = `Signed in as ${name}, with ${/^[aeiou]/.test(role) ? "an" : "a"} ${role} token`;
  $("live-state").hidden = false;
  connect();
  const note = $("role-note");
  note.hidden = context.canWrite;
  note.textContent = context.canWrite ? "" :
    "This token has the read role: you see everything but tokens and webhooks, and the controls that change things are disabled. Sign in with a write token to change rollouts, screens, rules, targeting and routes.";
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
  const [asked, ...rest] = (location.hash.slice(1) || "rollouts").split("/");
  const name = Object.hasOwn(pages, asked) && (context.isAdmin || !adminPages.has(asked)) ? asked : "rollouts";
  const page = pages[name];
  let argument = null;
  try { argument = rest.length ? decodeURIComponent(rest.join("/")) : null; } catch { /* not an argument */ }
  context.argument = argument;
  for (const link of $("nav").querySelectorAll("a")) {
    if (link.getAttribute("href") === `#${page.navigation || name}`) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  clearInterval(timer);
  notify("");
  // A container of its own: a page still loading from an earlier visit fills one nobody sees.
  const container = document.createElement("div");
  $("page").replaceChildren(container);
  $("page").hidden = false;
  current = page;
  ready = false;
  pendingEvent = false; // what came before is in what the page loads now
  $("page").setAttribute("aria-busy", "true");
  try {
    await page.render(container, context);
  } catch (error) {
    notify(explain(error, "Loading the page"), "error");
  }
  if (current !== page) return; // another page was asked for meanwhile
  $("page").removeAttribute("aria-busy");
  ready = true;
  hideBanner();
  schedulePolling();
  if (pendingEvent) refresh(true);
}

// Polls the page every 3 s while the stream is down, or always for a page the stream does not
// cover (`polled`).
function schedulePolling() {
  clearInterval(timer);
  timer = null;
  if (!live || current?.polled) timer = setInterval(poll, pollMilliseconds);
}

async function poll() {
  if (!current?.poll || !ready || document.hidden || context.busy) return;
  try {
    await current.poll();
  } catch (error) {
    if (error.status === 401) signOut();
  }
}

// The page's data again after a change event. A page's poll answers true when what it showed
// differed from the server's (its own writes are already shown when it wrote, and an event that
// comes during a write waits for it), so then the change was someone else's: the banner says so.
async function refresh(fromEvent) {
  if (context.busy || !ready) { pendingEvent = true; return; }
  pendingEvent = false;
  if (!current?.poll) return;
  if (refreshing) { pendingEvent = true; return; }
  const page = current;
  refreshing = (async () => {
    try {
      const changed = await page.poll();
      if (changed && fromEvent && page === current) showBanner();
    } catch (error) {
      if (error.status === 401) signOut();
    } finally {
      refreshing = null;
      if (pendingEvent && !context.busy) refresh(true);
    }
  })();
}

function showBanner() {
  const banner = $("live-banner");
  $("live-banner-text").textContent = `Changed by someone else at ${new Date().toLocaleTimeString()} — showing the new state.`;
  banner.hidden = false;
}

function hideBanner() { $("live-banner").hidden = true; }

function setLive(value) {
  live = value;
  document.documentElement.dataset.live = value ? "stream" : "polling";
  $("live-state").textContent = value ? "Live" : "Updating every 3 s";
  schedulePolling();
}

// The change stream: public, same origin (CSP connect-src 'self'). The browser reconnects by
// itself (`retry: 2000`); meanwhile the page is polled.
function connect() {
  if (stream || typeof EventSource === "undefined") return;
  stream = new EventSource("/v1/changes");
  stream.addEventListener("open", () => {
    const reconnected = opened && !live;
    opened = true;
    setLive(true);
    if (reconnected) refresh(false); // what changed while it was down, without a banner
  });
  // Once per outage: the browser retries every 2 s, which must not restart the 3 s poll each time.
  stream.addEventListener("error", () => { if (live || !document.documentElement.dataset.live) setLive(false); });
  for (const kind of ["targeting", "screens", "routes", "reset"]) {
    stream.addEventListener(kind, () => {
      if (!document.hidden) refresh(true);
      else pendingEvent = true;
    });
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
$("live-banner-close").addEventListener("click", hideBanner);
document.addEventListener("visibilitychange", () => { if (!document.hidden && pendingEvent) refresh(true); });
window.addEventListener("hashchange", show);
// Closed before the page goes, so leaving it is no interrupted request (Firefox logs those).
window.addEventListener("pagehide", () => { stream?.close(); stream = null; });
window.addEventListener("pageshow", (event) => { if (event.persisted && session.token) connect(); });

if (session.token) {
  signIn(session.token).catch(() => { session.token = null; });
}
