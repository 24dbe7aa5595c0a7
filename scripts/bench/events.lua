-- wrk script: POST /v1/events, every request a batch of 100 events with ids never sent before
-- (thread, request and position, under a nonce given after `--`, so rounds never repeat ids): 20
-- exposures to the experiment product-related and 80 `purchase` events with a value, each for its
-- own user, timestamped now. A batch is built from prebuilt pieces, so the client spends little on it.
--   wrk -t2 -c64 -d10s -s scripts/bench/events.lua http://127.0.0.1:PORT/v1/events -- NONCE
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

local nonce = "x"
function init(args)
  nonce = args[1] or tostring(os.time())
end

local n = 0
local parts = {}
function request()
  n = n + 1
  local stamp = os.date("!%Y-%m-%dT%H:%M:%SZ")
  local prefix = nonce .. "-" .. (tid or 0) .. "-" .. n .. "-"
  for j = 1, 100 do
    local id = prefix .. j
    if j <= 20 then
      parts[j] = '{"id":"' .. id .. '","timestamp":"' .. stamp .. '","context":{"targetingKey":"b' .. id ..
        '"},"exposure":{"experiment":"product-related","variant":"' .. (j % 10 == 0 and "hidden" or "control") .. '"}}'
    else
      parts[j] = '{"id":"' .. id .. '","timestamp":"' .. stamp .. '","context":{"targetingKey":"b' .. id ..
        '"},"name":"purchase","value":' .. (j % 7 + 0.5) .. '}'
    end
  end
  return wrk.format("POST", wrk.path, { ["Content-Type"] = "application/json" }, "[" .. table.concat(parts, ",") .. "]")
end

local refused = 0
function response(status, headers, body)
  if status ~= 202 then
    refused = refused + 1
    if refused <= 3 then io.stderr:write("events.lua: " .. status .. " " .. body:sub(1, 200) .. "\n") end
  end
end
