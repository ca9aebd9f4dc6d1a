package dev.keypool.config;

import java.util.List;

/** A client of the gateway: its bearer token, its own rate limit (null = none) and the channels it may use (empty = all). */
public record TenantConfig(String name, String token, Integer rpm, List<String> channels) {

    public TenantConfig {
        channels = Copies.list(channels);
    }

    /** Without the token: it is a credential. */
    @Override
    public String toString() {
        return "TenantConfig[name=" + name + ", rpm=" + rpm + ", channels=" + channels + "]";
    }
}
