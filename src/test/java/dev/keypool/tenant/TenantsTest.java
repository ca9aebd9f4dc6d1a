package dev.keypool.tenant;

import java.time.Clock;
import java.util.List;

import dev.keypool.pool.ApiKey;
import dev.keypool.quota.Priority;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TenantsTest {

    private static Tenant tenant(String name, String token, List<String> channels, List<String> models) {
        return new Tenant(name, token, Priority.NORMAL, channels, models, true,
                new LocalTenantLimits(name, null, 1, null, null, null, null, Clock.systemUTC()));
    }

    private final Tenants tenants = new Tenants(List.of(
            tenant("team-a", "token-a", List.of(), List.of()),
            tenant("team-b", "token-b", List.of("zhipu"), List.of("glm-4-flash", "deepseek-*"))));

    @Test
    void should_find_a_tenant_by_its_token_only() {
        assertThat(tenants.authenticate("token-b")).map(Tenant::name).contains("team-b");
        assertThat(tenants.authenticate("token-a")).map(Tenant::name).contains("team-a");
        assertThat(tenants.authenticate("token-c")).isEmpty();
        assertThat(tenants.authenticate("token-a ")).isEmpty();
        assertThat(tenants.authenticate("")).isEmpty();
        assertThat(tenants.authenticate(null)).isEmpty();
        assertThat(tenants.enforced()).isTrue();
        assertThat(new Tenants(List.of()).enforced()).isFalse();
    }

    @Test
    void should_keep_no_token_in_what_it_prints() {
        assertThat(tenants.all().get(0).toString()).doesNotContain("token-a");
    }

    @Test
    void should_allow_models_by_wildcard_and_channels_by_name() {
        Tenant b = tenants.all().get(1);

        assertThat(b.mayUseModel("glm-4-flash")).isTrue();
        assertThat(b.mayUseModel("deepseek-chat")).isTrue();
        assertThat(b.mayUseModel("deepseek-")).isTrue();
        assertThat(b.mayUseModel("glm-4")).isFalse();
        assertThat(b.mayUseModel("my-deepseek-chat")).isFalse();
        assertThat(b.mayUseChannel("zhipu")).isTrue();
        assertThat(b.mayUseChannel("deepseek")).isFalse();
        Tenant a = tenants.all().get(0);
        assertThat(a.mayUseModel("anything.at/all")).isTrue();
        assertThat(a.mayUseChannel("deepseek")).isTrue();
    }

    @Test
    void should_treat_pattern_characters_other_than_the_star_literally() {
        ModelPatterns patterns = new ModelPatterns(List.of("gpt-4o.mini", "qwen*-[a]"));

        assertThat(patterns.allows("gpt-4o.mini")).isTrue();
        assertThat(patterns.allows("gpt-4oXmini")).isFalse();
        assertThat(patterns.allows("qwen2.5-[a]")).isTrue();
        assertThat(patterns.allows("qwen2.5-a")).isFalse();
    }

    @Test
    void should_scope_a_tenant_to_its_own_keys_then_the_shared_ones() {
        Tenant a = tenants.all().get(0);
        ApiKey own = new ApiKey("sk-own", null, 1, dev.keypool.quota.QuotaLimits.NONE, dev.keypool.pool.KeyRamp.Plan.NONE, "team-a");
        ApiKey shared = new ApiKey("sk-shared", null, 1);
        ApiKey others = new ApiKey("sk-b", null, 1, dev.keypool.quota.QuotaLimits.NONE, dev.keypool.pool.KeyRamp.Plan.NONE, "team-b");

        assertThat(a.keyScope().admits(own)).isTrue();
        assertThat(a.keyScope().isOwn(own)).isTrue();
        assertThat(a.keyScope().admits(shared)).isTrue();
        assertThat(a.keyScope().isOwn(shared)).isFalse();
        assertThat(a.keyScope().admits(others)).isFalse();
    }
}
