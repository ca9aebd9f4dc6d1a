package dev.keypool.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.keypool.breaker.BreakerSettings;
import dev.keypool.breaker.BreakerTrigger;
import dev.keypool.pool.Cooling;
import dev.keypool.pool.Recovery;

import org.junit.jupiter.api.Test;

import static dev.keypool.config.ConfigFixtures.ENV;
import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.parse;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static dev.keypool.config.ConfigFixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigBindingTest {

    private final GatewayConfig full = new ConfigLoader(ENV::get).load(resource("full.yaml"));

    @Test
    void should_bind_every_channel_field_of_a_full_file() {
        ChannelConfig zhipu = full.channels().get(0);

        assertThat(zhipu.name()).isEqualTo("zhipu");
        assertThat(zhipu.baseUrl()).as("trailing slash dropped").isEqualTo("https://open.bigmodel.cn/api/paas/v4");
        assertThat(zhipu.models()).containsExactly("glm-4-flash", "glm-4");
        assertThat(zhipu.modelMap()).containsExactly(Map.entry("gpt-4o-mini", "glm-4-flash"));
        assertThat(zhipu.strategy()).isEqualTo("weighted-random");
        assertThat(zhipu.timeout()).isEqualTo(Duration.ofSeconds(45));
        assertThat(zhipu.maxRetries()).isEqualTo(2);
        assertThat(zhipu.cooldown()).isEqualTo(Duration.ofMinutes(5));
        assertThat(zhipu.disableAfter()).isEqualTo(7);
        assertThat(zhipu.fallback()).containsExactly("dashscope", "deepseek");
        assertThat(full.channels()).extracting(ChannelConfig::name).containsExactly("zhipu", "dashscope", "deepseek");
    }

    @Test
    void should_bind_every_key_field_and_leave_unset_limits_null() {
        List<KeyConfig> keys = full.channels().get(0).keys();

        assertThat(keys).containsExactly(
                new KeyConfig("sk-zhipu-1", "team-pro", 5, 600, 1_000_000L, 20_000, 4_000_000L, 5_000_000_000L),
                new KeyConfig("sk-zhipu-2", null, 1, null, null, null, null, null));
    }

    @Test
    void should_bind_every_breaker_field() {
        assertThat(full.channels().get(0).breaker()).isEqualTo(new BreakerSettings(
                Set.of(BreakerTrigger.POOL_EXHAUSTED, BreakerTrigger.ERROR_RATE), 30, Duration.ofMinutes(2), 20, 15_000, Duration.ofSeconds(90),
                4, Duration.ofSeconds(45), 4, 3, Duration.ofHours(1)));
    }

    @Test
    void should_bind_tenants_and_admin() {
        assertThat(full.tenants()).containsExactly(
                new TenantConfig("team-a", "tenant-a-token", 600, List.of("zhipu", "deepseek")),
                new TenantConfig("team-b", "tenant-b-token", null, List.of()));
        assertThat(full.admin()).isEqualTo(new AdminConfig("admin-token"));
    }

    @Test
    void should_apply_the_spec_defaults_to_a_minimal_file() {
        GatewayConfig minimal = new ConfigLoader(ENV::get).load(resource("minimal.yaml"));
        ChannelConfig zhipu = minimal.channels().get(0);

        assertThat(zhipu.strategy()).isEqualTo("round-robin");
        assertThat(zhipu.timeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(zhipu.maxRetries()).isEqualTo(3);
        assertThat(zhipu.cooling()).isEqualTo(Cooling.spread(Duration.ofSeconds(30), Duration.ofSeconds(60)));
        assertThat(zhipu.keyRecovery()).isEqualTo(new Recovery(true, Duration.ofMinutes(1), Duration.ofMinutes(30),
                Duration.ofMinutes(5)));
        assertThat(zhipu.disableAfter()).isEqualTo(5);
        assertThat(zhipu.modelMap()).isEmpty();
        assertThat(zhipu.fallback()).isEmpty();
        assertThat(zhipu.keys()).singleElement().extracting(KeyConfig::weight).isEqualTo(1);
        assertThat(zhipu.breaker()).isEqualTo(BreakerSettings.defaults());
        assertThat(minimal.tenants()).as("no tenants: the gateway is open").isEmpty();
        assertThat(minimal.admin()).as("no admin: admin API off").isNull();
        assertThat(minimal.redis()).as("no redis: every state stays in this instance").isNull();
    }

    @Test
    void should_bind_the_redis_block_with_its_defaults() {
        GatewayConfig config = parse(ENV, channelWith("") + """
                redis:
                  url: ${REDIS_URL:-redis://:pw@localhost:6379}
                """);

        assertThat(config.redis()).isEqualTo(new RedisConfig("redis://:pw@localhost:6379", "keypool", Duration.ofMillis(50)));
        assertThat(config.redis().toString()).doesNotContain("pw");
        assertThat(parse(ENV, channelWith("") + "redis: {url: redis://r:6379, keyPrefix: kp, timeout: 20ms}").redis())
                .isEqualTo(new RedisConfig("redis://r:6379", "kp", Duration.ofMillis(20)));
        assertThat(problemsOf(channelWith("") + "redis: {keyPrefix: kp}")).singleElement().asString().contains("redis.url");
    }

    @Test
    void should_default_each_breaker_field_left_out_of_a_partial_block() {
        BreakerSettings breaker = parse(ConfigFixtures.breakerWith("errorRateThreshold: 25")).channels().get(0).breaker();

        assertThat(breaker.errorRateThreshold()).isEqualTo(25);
        assertThat(breaker).usingRecursiveComparison().ignoringFields("errorRateThreshold")
                .isEqualTo(BreakerSettings.defaults());
    }

    @Test
    void should_shrink_the_default_half_open_successes_to_fit_fewer_probes() {
        BreakerSettings breaker = parse(ConfigFixtures.breakerWith("halfOpenRequests: 1")).channels().get(0).breaker();

        assertThat(breaker.halfOpenRequests()).isEqualTo(1);
        assertThat(breaker.halfOpenSuccess()).isEqualTo(1);
    }

    @Test
    void should_treat_a_null_block_as_left_out() {
        GatewayConfig config = parse(ConfigFixtures.channelWith("modelMap:\nbreaker:\nfallback:") + "tenants:\nadmin:\n");

        assertThat(config.channels().get(0).breaker()).isEqualTo(BreakerSettings.defaults());
        assertThat(config.channels().get(0).modelMap()).isEmpty();
        assertThat(config.tenants()).isEmpty();
        assertThat(config.admin()).isNull();
    }

    @Test
    void should_read_quoted_numbers_like_plain_ones() {
        KeyConfig key = parse(ConfigFixtures.keyWith("key: sk-one\nweight: \"3\"")).channels().get(0).keys().get(0);

        assertThat(key.weight()).isEqualTo(3);
    }

    @Test
    void should_find_a_channel_by_name() {
        assertThat(full.channel("deepseek")).map(ChannelConfig::baseUrl).contains("https://api.deepseek.com/v1");
        assertThat(full.channel("nope")).isEmpty();
    }

    @Test
    void should_serve_listed_mapped_and_wildcard_models() {
        ChannelConfig zhipu = full.channel("zhipu").orElseThrow();
        ChannelConfig dashscope = full.channel("dashscope").orElseThrow();

        assertThat(zhipu.servesModel("glm-4")).isTrue();
        assertThat(zhipu.servesModel("gpt-4o-mini")).as("a modelMap key").isTrue();
        assertThat(zhipu.servesModel("qwen-max")).isFalse();
        assertThat(dashscope.servesModel("qwen-max")).as("\"*\" serves any model").isTrue();
    }

    @Test
    void should_rename_mapped_models_on_the_way_up_and_keep_others() {
        ChannelConfig zhipu = full.channel("zhipu").orElseThrow();

        assertThat(zhipu.upstreamModel("gpt-4o-mini")).isEqualTo("glm-4-flash");
        assertThat(zhipu.upstreamModel("glm-4")).isEqualTo("glm-4");
    }

    @Test
    void should_hand_out_unmodifiable_collections() {
        ChannelConfig zhipu = full.channels().get(0);

        assertThatThrownBy(() -> full.channels().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> full.tenants().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> zhipu.models().add("x")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> zhipu.modelMap().put("a", "b")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> zhipu.keys().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> zhipu.fallback().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> zhipu.breaker().triggers().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> full.tenants().get(0).channels().clear()).isInstanceOf(UnsupportedOperationException.class);
    }
}
