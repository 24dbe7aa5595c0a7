-- wrk script: every request a new user id, one of four platforms and one of six app versions.
-- The path is the URL's (wrk.path); the query is appended. Threads get disjoint user ids.
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

local platforms = { "ios", "android", "ipados", "web" }
local versions = { "4.9.0", "5.0.0", "5.1.0", "5.2.3", "5.3.0", "6.0.1" }
local n = 0
function request()
  n = n + 1
  local path = string.format("%s?user=u%d-%d&platform=%s&appVersion=%s",
    wrk.path, tid or 0, n, platforms[n % 4 + 1], versions[n % 6 + 1])
  return wrk.format(nil, path)
end
