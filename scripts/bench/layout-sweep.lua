-- wrk script: GET the URL's path and query with `&width=W` added, W a new width on every request
-- (300.00, 300.01, …; up to 8 threads interleaved), so every request is a layout-cache miss.
-- WIDTH_STEPS (environment) bounds the sweep: after that many widths a thread starts over.
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
function init(args)
  steps = tonumber(os.getenv("WIDTH_STEPS") or "") or 900000
end

local n = 0
function request()
  local k = (n * 8 + (tid or 0)) % steps
  n = n + 1
  local sep = wrk.path:find("?", 1, true) and "&" or "?"
  return wrk.format(nil, string.format("%s%swidth=%.2f", wrk.path, sep, 300 + k / 100))
end
