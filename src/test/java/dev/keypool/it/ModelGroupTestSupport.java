package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway of the model-group tests (design §16): channels that each serve {@code <channel>-chat} with one key,
 * {@code sk-<channel>-1}, the groups (and tenants) of the test, and the admin API behind {@link AdminCalls}' token;
 * the tests read which channel answered and force a channel's breaker.
 */
abstract class ModelGroupTestSupport extends GatewayTestSupport {

    protected final AdminCalls admin = new AdminCalls(http, url(""));

    /** The names of the channels, in keypool.yaml's order. */
    protected abstract List<String> channels();

    /** keypool.yaml after its channels: the {@code modelGroups} block, and {@code tenants} where the test has some. */
    protected abstract String groups();

    /** One channel's entry of keypool.yaml; a test whose channel has more to say adds to it. */
    protected String channelYaml(String name) {
        return """
                  - name: %1$s
                    baseUrl: UPSTREAM
                    models: [%1$s-chat]
                    keys:
                      - key: sk-%1$s-1
                """.formatted(name);
    }

    @Override
    protected final String keypoolYaml() {
        StringBuilder yaml = new StringBuilder("channels:\n");
        channels().forEach(name -> yaml.append(channelYaml(name)));
        return yaml.append(groups()).append("admin:\n  token: ").append(AdminCalls.TOKEN).append('\n').toString();
    }

    /** The channel that served an answer, which must be a 200. */
    protected static String channelOf(HttpResponse<String> answer) {
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return answer.headers().firstValue("X-KeyPool-Channel").orElseThrow();
    }

    /** Forces the channel's breaker OPEN or CLOSED, as an operator does. */
    protected void forceBreaker(String channel, String state) throws Exception {
        HttpResponse<String> forced = admin.post("/admin/channels/" + channel + "/breaker",
                "{\"state\":\"" + state + "\",\"reason\":\"model group test\"}");
        assertThat(forced.statusCode()).as(forced.body()).isEqualTo(200);
    }
}
