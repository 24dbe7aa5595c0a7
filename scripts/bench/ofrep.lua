-- wrk script: OFREP evaluations (POST), every request a new user with one of four platforms and
-- six app versions, like personalised.lua. The URL's path is the endpoint: one flag
-- (/ofrep/v1/evaluate/flags/KEY) or every flag (/ofrep/v1/evaluate/flags).
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
  local body = string.format('{"context":{"targetingKey":"u%d-%d","platform":"%s","appVersion":"%s"}}',
    tid or 0, n, platforms[n % 4 + 1], versions[n % 6 + 1])
  return wrk.format("POST", wrk.path, { ["Content-Type"] = "application/json" }, body)
end
