-- One tenant's limits, shared by every gateway instance (design §7, §11): checks the budget, the rpm bucket, the
-- tokens-per-minute window and the requests of the day, and takes from all of them at once or from none.
-- KEYS: 1 bucket (hash: units, at), 2 tpm window (hash: "<epoch second>|<instance>" -> tokens),
--       3 requests today (hash: instance -> count), 4 spent today, 5 spent this month (hash: instance -> micro-USD)
-- ARGV: 1 now (ms, the gateway's clock), 2 rpm, 3 burst, 4 tpm, 5 estimated tokens, 6 rpd, 7 daily budget (micro-USD),
--       8 monthly budget, 9 instance, 10 end of the UTC day (ms), 11 end of the UTC month (ms), 12 "take" or "peek";
--       a limit of -1 is no limit
-- The bucket is kept in units of 1/60000 request, so that rpm units flow in per millisecond: integers only.
-- Returns {refusal, retry after ms, bucket units, tokens used in the window, ms until the window is empty, micro-USD
-- spent today, this month}; refusal is 0 when admitted, 1 bucket, 2 tokens per minute, 3 requests per day, 4 budget.
-- tenant_admit(take) answers that and, second, a function that takes an admitted request later and answers anew: a
-- script may check a tenant on its first 5 keys and 12 arguments, then take it only if the rest of its work has room.
local function tenant_admit(take)
    local now = tonumber(ARGV[1])
    local rpm, burst, tpm = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
    local tokens, rpd = tonumber(ARGV[5]), tonumber(ARGV[6])
    local daily, monthly = tonumber(ARGV[7]), tonumber(ARGV[8])
    local instance, dayEnd, monthEnd = ARGV[9], tonumber(ARGV[10]), tonumber(ARGV[11])
    local UNIT = 60000
    local WINDOW = 60

    local function sum(key)
        local total = 0
        for _, v in ipairs(redis.call('HVALS', key)) do
            total = total + tonumber(v)
        end
        return total
    end

    local refusal, retry = 0, 0

    local spentToday, spentThisMonth = 0, 0
    if daily >= 0 then
        spentToday = sum(KEYS[4])
        if spentToday >= daily then
            refusal, retry = 4, dayEnd - now
        end
    end
    if monthly >= 0 then
        spentThisMonth = sum(KEYS[5])
        if spentThisMonth >= monthly then
            refusal, retry = 4, monthEnd - now
        end
    end

    local units = 0
    if rpm >= 0 then
        units = burst * UNIT
        local stored = redis.call('HMGET', KEYS[1], 'units', 'at')
        if stored[1] then
            units = math.min(burst * UNIT, tonumber(stored[1]) + math.max(0, now - tonumber(stored[2])) * rpm)
        end
        if refusal == 0 and units < UNIT then
            refusal, retry = 1, math.ceil((UNIT - units) / rpm)
        end
    end

    -- the sliding minute in one-second buckets, as dev.keypool.window.SlidingCounter counts it: a call counts for at
    -- least a minute and at most a second longer
    local current = math.floor(now / 1000)
    local oldest = current - WINDOW
    local used, perSecond = 0, {}
    if tpm >= 0 then
        local all = redis.call('HGETALL', KEYS[2])
        local stale = {}
        for i = 1, #all, 2 do
            local second = tonumber(string.match(all[i], '^(%d+)'))
            if second < oldest then
                stale[#stale + 1] = all[i]
            else
                -- a second after this instance's now is another instance's, whose clock is ahead: it counts all the same
                local amount = tonumber(all[i + 1])
                used = used + amount
                perSecond[second] = (perSecond[second] or 0) + amount
            end
        end
        if #stale > 0 then
            redis.call('HDEL', KEYS[2], unpack(stale))
        end
        if refusal == 0 and used + tokens > tpm then
            refusal, retry = 2, WINDOW * 1000
            if tokens <= tpm then
                local left = used
                for second = oldest, current do
                    left = left - (perSecond[second] or 0)
                    if left <= tpm - tokens then
                        retry = (second + WINDOW + 1) * 1000 - now
                        break
                    end
                end
            end
        end
    end

    if rpd >= 0 and refusal == 0 and sum(KEYS[3]) + 1 > rpd then
        refusal, retry = 3, dayEnd - now
    end

    -- the answer as the limits stand: x-ratelimit-reset-tokens is when what the window holds has all left it
    local function verdict()
        local emptyIn = 0
        if used > 0 then
            local left = used
            for second = oldest, current do
                left = left - (perSecond[second] or 0)
                if left <= 0 then
                    emptyIn = (second + WINDOW + 1) * 1000 - now
                    break
                end
            end
        end
        return {refusal, retry, units, used, emptyIn, spentToday, spentThisMonth}
    end

    -- takes the request, which the checks above admitted
    local function apply()
        if rpm >= 0 then
            units = units - UNIT
            redis.call('HSET', KEYS[1], 'units', units, 'at', now)
            redis.call('PEXPIRE', KEYS[1], math.ceil((burst * UNIT - units) / math.max(rpm, 1)) + 1000)
        end
        if tpm >= 0 and tokens > 0 then
            redis.call('HINCRBY', KEYS[2], current .. '|' .. instance, tokens)
            redis.call('PEXPIRE', KEYS[2], (WINDOW + 2) * 1000)
            used = used + tokens
            perSecond[current] = (perSecond[current] or 0) + tokens
        end
        if rpd >= 0 then
            redis.call('HINCRBY', KEYS[3], instance, 1)
            redis.call('PEXPIRE', KEYS[3], dayEnd - now + 86400000)
        end
        return verdict()
    end

    if refusal == 0 and take then
        return apply(), apply
    end
    return verdict(), apply
end
