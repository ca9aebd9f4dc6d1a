-- What one gateway instance took from a tenant's limits, written back to Redis when it answers again (after being
-- down, or restarted empty). Each count is the instance's own field, so writing it again is harmless: a field only
-- ever grows to what the instance has counted (max), never adds twice. The bucket loses what the instance admitted
-- on its own while Redis was away.
-- KEYS: as tenant-admit.lua (1 bucket, 2 tpm window, 3 requests today, 4 spent today, 5 spent this month)
-- ARGV: 1 now (ms), 2 rpm, 3 burst, 4 instance, 5 end of the UTC day (ms), 6 end of the UTC month (ms),
--       7 requests today, 8 micro-USD spent today, 9 this month, 10 requests admitted while Redis was away,
--       then pairs of (epoch second, tokens) of the instance's tokens still in the minute window
local now, rpm, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local instance, dayEnd, monthEnd = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
local UNIT = 60000

local function atLeast(key, field, value, ttl)
    if value > 0 then
        local stored = tonumber(redis.call('HGET', key, field) or '0')
        if value > stored then
            redis.call('HSET', key, field, value)
        end
        redis.call('PEXPIRE', key, ttl)
    end
end

atLeast(KEYS[3], instance, tonumber(ARGV[7]), dayEnd - now + 86400000)
atLeast(KEYS[4], instance, tonumber(ARGV[8]), dayEnd - now + 86400000)
atLeast(KEYS[5], instance, tonumber(ARGV[9]), monthEnd - now + 86400000)
for i = 11, #ARGV, 2 do
    atLeast(KEYS[2], ARGV[i] .. '|' .. instance, tonumber(ARGV[i + 1]), 62000)
end

local offline = tonumber(ARGV[10])
if rpm >= 0 and offline > 0 then
    local units = burst * UNIT
    local stored = redis.call('HMGET', KEYS[1], 'units', 'at')
    if stored[1] then
        units = math.min(burst * UNIT, tonumber(stored[1]) + math.max(0, now - tonumber(stored[2])) * rpm)
    end
    units = math.max(0, units - offline * UNIT)
    redis.call('HSET', KEYS[1], 'units', units, 'at', now)
    redis.call('PEXPIRE', KEYS[1], math.ceil((burst * UNIT - units) / math.max(rpm, 1)) + 1000)
end
return 1
