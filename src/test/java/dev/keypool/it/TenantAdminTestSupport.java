package dev.keypool.it;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A gateway with one channel serving every model, one tenant of the file ({@code team-a}, token {@code token-a}) and
 * the admin API on: the fixture of the tests of tenants made and changed through the admin API.
 */
abstract class TenantAdminTestSupport extends GatewayTestSupport {

    protected final ObjectMapper mapper = new ObjectMapper();

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: ["*"]
                    keys:
                      - key: sk-alpha-1
                tenants:
                  - name: team-a
                    token: token-a
                admin:
                  token: admin-secret-token
                """;
    }

    protected AdminCalls admin() {
        return new AdminCalls(http, url(""));
    }
}
