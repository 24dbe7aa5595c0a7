// The admin API as the console calls it: the token from this tab's session storage, sent only as a
// bearer header; every answer read as JSON (problems included).

const tokenKey = "trellis.console.token";

export const session = {
  get token() { return sessionStorage.getItem(tokenKey); },
  set token(value) {
    if (value) sessionStorage.setItem(tokenKey, value);
    else sessionStorage.removeItem(tokenKey);
  },
};

// An answer that is not 2xx: the request it answers, its status and problem document (RFC 9457).
export class ApiError extends Error {
  constructor(method, path, status, problem) {
    super(problem?.detail || `HTTP ${status}`);
    this.method = method;
    this.path = path;
    this.status = status;
    this.problem = problem || {};
  }
}

// { status, etag, body } of `method path`; throws ApiError when not 2xx.
export async function call(method, path, { body, ifMatch, token = session.token } = {}) {
  const headers = { Authorization: `Bearer ${token}` };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    if (typeof body !== "string") body = JSON.stringify(body);
  }
  if (ifMatch) headers["If-Match"] = ifMatch;
  const response = await fetch(path, { method, headers, body, cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" });
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = { detail: text }; }
  if (!response.ok) throw new ApiError(method, path, response.status, json);
  return { status: response.status, etag: response.headers.get("ETag"), body: json };
}

export const get = (path, options) => call("GET", path, options);

// The body of `GET path` as text, as stored (a revision's document keeps its author's layout).
export async function getText(path) {
  const response = await fetch(path, { headers: { Authorization: `Bearer ${session.token}` }, cache: "no-store", credentials: "omit" });
  if (!response.ok) {
    let problem = null;
    try { problem = await response.json(); } catch { /* not a problem document */ }
    throw new ApiError("GET", path, response.status, problem);
  }
  return response.text();
}

// { name, role } of `token` (GET /admin/whoami; 401 for a token this server does not know).
// Roles: read < write < approve < admin, each allowed what the ones before it are.
export async function whoAmI(token) {
  return (await get("/admin/whoami", { token })).body;
}

// A write's answer as a sentence: a 202 is a change request held for approval.
export function describeWrite(result, what) {
  if (result.status === 202) {
    const id = result.body?.id;
    return `${what}: held for approval as change request #${id}. It takes effect once another token approves it.`;
  }
  return `${what}: done.`;
}

// A problem as a sentence: what was asked (method and path), the status, the server's reason
// (its `detail`, and each listed error with its JSON path), and what the console knows of the status.
export function explain(error, what) {
  if (!(error instanceof ApiError)) return `${what} failed: ${error.message}`;
  const asked = `${error.method} ${error.path}`;
  const reason = error.problem.detail || error.message;
  const listed = (error.problem.errors || []).map(problemText);
  const more = listed.length > 5 ? `; and ${listed.length - 5} more` : "";
  const errors = listed.length ? ` (${listed.slice(0, 5).join("; ")}${more})` : "";
  switch (error.status) {
    case 401: return `${what} failed: the token was not accepted (401 from ${asked}). Sign in again.`;
    case 403: return `${what} failed: this token may not do that (403 from ${asked}): ${reason}`;
    case 412: return `${what} failed: someone else changed it since this page loaded it (412 from ${asked}), so nothing was changed. Reload shows their value; then decide again.`;
    case 428: return `${what} failed: the server requires If-Match (428 from ${asked}). Reload and try again.`;
    default: return `${what} failed (${error.status} from ${asked}): ${reason}${errors}`;
  }
}

// One error of a problem's `errors` as text: where (line and column, the JSON path) and why.
export function problemText(problem) {
  const where = [
    problem.line ? `line ${problem.line}, column ${problem.column}` : null,
    problem.path && problem.path !== "$" ? problem.path : null,
    problem.parameter ? `parameter ${problem.parameter}` : null,
  ].filter(Boolean).join(", ");
  return where ? `${where}: ${problem.message}` : problem.message;
}
