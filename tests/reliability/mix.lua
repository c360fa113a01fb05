-- wrk script: the /api/* requests the web UI sends over random windows,
-- pids and event types, plus a few deliberately bad ones (1 in 50 a malformed parameter,
-- 1 in 100 an unknown endpoint).  Arguments after "--": MIN_TS MAX_TS PIDS TYPES
-- (comma-separated).  done() prints one "mix:" line with what was sent and received.
local threads = {}

function setup(thread)
	table.insert(threads, thread)
end

local function split(s)
	local t = {}
	for x in string.gmatch(s, "[^,]+") do t[#t + 1] = x end
	return t
end

function init(args)
	lo, hi = tonumber(args[1]), tonumber(args[2])
	pids, types = split(args[3]), split(args[4])
	sent, bad400, bad404 = 0, 0, 0
	got2xx, got400, got404, other = 0, 0, 0, 0
	math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0))
end

local function window()
	local span = hi - lo
	local a = lo + math.floor(math.random() * span * 0.9)
	local w = math.floor(span * (0.001 + math.random() * 0.5))
	return string.format("start_ns=%.0f&end_ns=%.0f", a, math.min(hi, a + w))
end

local function pick(t) return t[math.random(#t)] end

function request()
	sent = sent + 1
	local r, w, pid = math.random(100), window(), pick(pids)
	local path
	if r <= 2 then
		bad400 = bad400 + 1
		path = "/api/histogram?" .. w .. "&num_buckets=zero"
	elseif r <= 3 then
		bad404 = bad404 + 1
		path = "/api/no_such_endpoint?" .. w
	elseif r <= 8 then path = "/api/summary"
	elseif r <= 12 then path = "/api/process_lifetimes"
	elseif r <= 18 then path = string.format("/api/histogram?start_ns=%.0f&end_ns=%.0f&num_buckets=80", lo, hi)
	elseif r <= 30 then path = "/api/process_events?" .. w .. "&max_events_per_pid=500"
	elseif r <= 38 then path = "/api/event_type_counts?" .. w
	elseif r <= 46 then path = "/api/pid_event_type_counts?pid=" .. pid .. "&" .. w
	elseif r <= 56 then path = "/api/syscall_latency_stats?" .. w .. (r % 2 == 0 and "&pid=" .. pid or "")
	elseif r <= 66 then path = "/api/event_flamegraph?" .. w .. "&event_type=" .. pick(types) .. "&max_stacks=5000&pid=" .. pid
	elseif r <= 74 then path = "/api/io_statistics?" .. w .. "&max_points=200" .. (r % 2 == 0 and "&pid=" .. pid or "")
	elseif r <= 82 then path = "/api/memory_statistics?" .. w .. "&max_points=200" .. (r % 2 == 0 and "&pid=" .. pid or "")
	elseif r <= 96 then
		path = "/api/event_list?" .. w .. "&pid=" .. pid .. "&limit=50&offset=" .. 50 * math.random(0, 4)
		if r % 2 == 0 then path = path .. "&event_types=" .. pick(types) .. "%2C" .. pick(types) end
	else path = "/"
	end
	return wrk.format("GET", path)
end

function response(status, headers, body)
	if status >= 200 and status < 300 then got2xx = got2xx + 1
	elseif status == 400 then got400 = got400 + 1
	elseif status == 404 then got404 = got404 + 1
	else other = other + 1
	end
end

function done(summary, latency, requests)
	local t = { sent = 0, bad400 = 0, bad404 = 0, got2xx = 0, got400 = 0, got404 = 0, other = 0 }
	for _, th in ipairs(threads) do
		for k, _ in pairs(t) do t[k] = t[k] + th:get(k) end
	end
	local e = summary.errors
	io.write(string.format("mix: sent %d bad400 %d bad404 %d got2xx %d got400 %d got404 %d other %d " ..
		"socket_errors %d p50_us %d p99_us %d max_us %d\n", t.sent, t.bad400, t.bad404, t.got2xx, t.got400,
		t.got404, t.other, e.connect + e.read + e.write + e.timeout,
		latency:percentile(50), latency:percentile(99), latency.max))
end
