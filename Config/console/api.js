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

// An answer that is not 2xx: its status and problem document (RFC 9457).
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || `HTTP ${status}`);
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
  if (!response.ok) throw new ApiError(response.status, json);
  return { status: response.status, etag: response.headers.get("ETag"), body: json };
}

export const get = (path, options) => call("GET", path, options);

// The body of `GET path` as text, as stored (a revision's document keeps its author's layout).
export async function getText(path) {
  const response = await fetch(path, { headers: { Authorization: `Bearer ${session.token}` }, cache: "no-store", credentials: "omit" });
  if (!response.ok) throw new ApiError(response.status, null);
  return response.text();
}

// The role of `token`, found without changing anything: a route that needs a role answers 403
// when the token's is lower, and otherwise refuses the unknown query parameter (400) before it
// looks at the path or body. Roles: read < write < approve < admin.
export async function roleOf(token) {
  await get("/admin/rollouts", { token }); // 401 for a token this server does not know
  const allows = async (path) => {
    try {
      await call("POST", `${path}?role-probe=1`, { token });
      return true;
    } catch (error) {
      if (error.status === 403) return false;
      if (error.status === 400) return true;
      throw error;
    }
  };
  if (await allows("/admin/changes/0/approve")) return "approve";
  if (await allows("/admin/rollouts/role-probe/kill")) return "write";
  return "read";
}

// A write's answer as a sentence: a 202 is a change request held for approval.
export function describeWrite(result, what) {
  if (result.status === 202) {
    const id = result.body?.id;
    return `${what}: held for approval as change request #${id}. It takes effect once another token approves it.`;
  }
  return `${what}: done.`;
}

// A problem as a sentence, with what the console knows of its status.
export function explain(error, what) {
  if (!(error instanceof ApiError)) return `${what} failed: ${error.message}`;
  switch (error.status) {
    case 401: return `${what} failed: the token was not accepted (401). Sign in again.`;
    case 403: return `${what} failed: this token may not do that (403). ${error.problem.detail || ""}`;
    case 412: return `${what} failed: someone else changed it since this page loaded it (412), so nothing was changed. Reload shows their value; then decide again.`;
    case 428: return `${what} failed: the server requires If-Match (428). Reload and try again.`;
    default: return `${what} failed (${error.status}): ${error.problem.detail || error.message}`;
  }
}
