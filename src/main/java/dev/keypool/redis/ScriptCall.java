package dev.keypool.redis;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import io.lettuce.core.ScriptOutputType;

/** The KEYS and ARGV of one Lua script call. */
record ScriptCall(List<String> keys, List<String> args) {

    /** This call's keys and arguments followed by {@code next}'s: one script running two parts on them. */
    ScriptCall then(ScriptCall next) {
        return new ScriptCall(Stream.concat(keys.stream(), next.keys.stream()).toList(),
                Stream.concat(args.stream(), next.args.stream()).toList());
    }

    /** Runs {@code script} on {@code redis} with these keys and arguments; empty as {@link RedisLink#eval} is. */
    <T> Optional<T> eval(RedisLink redis, RedisScript script, ScriptOutputType type) {
        return redis.eval(script, type, keys.toArray(String[]::new), args.toArray(String[]::new));
    }
}
