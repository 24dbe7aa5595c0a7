-- wrk script: GET the URL's path (a screen, /v1/screens/home) with a new user on every request
-- (?user=s<thread>-<n>), as apps ask for their screen.
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

local n = 0
function request()
  n = n + 1
  return wrk.format("GET", wrk.path .. "?user=s" .. (tid or 0) .. "-" .. n)
end
