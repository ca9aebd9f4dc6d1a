package dev.keypool.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/** A Lua script run in Redis by its SHA-1 ({@code EVALSHA}), loaded again when Redis has forgotten it. */
public record RedisScript(String name, String lua, String sha) {

    public RedisScript {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(lua, "lua");
        Objects.requireNonNull(sha, "sha");
    }

    public static RedisScript of(String name, String lua) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(lua.getBytes(StandardCharsets.UTF_8));
            return new RedisScript(name, lua, HexFormat.of().formatHex(digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
    }

    @Override
    public String toString() {
        return "RedisScript[" + name + "]";
    }
}
