package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model group splits its requests by the weights of its targets (design §16): a gray split over real HTTP. The tests
 * share one gateway: each draw is independent of the previous ones, whatever other test sent them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ModelGroupSplitTest extends ModelGroupTestSupport {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Enough draws for a bound of five standard deviations that still tells 1 in 10 from 1 in 4. */
    private static final int REQUESTS = 400;

    @Override
    protected List<String> channels() {
        return List.of("alpha", "beta");
    }

    @Override
    protected String groups() {
        return """
                modelGroups:
                  - name: gray-9-1
                    targets:
                      - {channel: alpha, model: alpha-chat, weight: 9}
                      - {channel: beta, model: beta-chat, weight: 1}
                  - name: split-3-1
                    targets:
                      - {channel: alpha, model: alpha-chat, weight: 3}
                      - {channel: beta, model: beta-chat, weight: 1}
                """;
    }

    /**
     * The models that answered {@link #REQUESTS} requests for the group, counted from X-KeyPool-Model; sent by four
     * clients at once, as each pick is a draw of its own.
     */
    private Map<String, Integer> served(String group) throws Exception {
        Map<String, Integer> counts = new ConcurrentHashMap<>();
        ExecutorService clients = Executors.newFixedThreadPool(4);
        try {
            List<Callable<Void>> requests = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                requests.add(() -> {
                    HttpResponse<String> r = chat(group);
                    assertThat(r.statusCode()).isEqualTo(200);
                    counts.merge(r.headers().firstValue("X-KeyPool-Model").orElse("none"), 1, Integer::sum);
                    return null;
                });
            }
            for (Future<Void> request : clients.invokeAll(requests)) {
                request.get();
            }
        } finally {
            clients.shutdownNow();
        }
        return counts;
    }

    @Test
    void should_send_ten_percent_to_the_target_of_weight_1_against_9() throws Exception {
        Map<String, Integer> counts = served("gray-9-1");
        // 10 % of 400 ± 5 standard deviations (6 each): wrong once in a million runs, and far from a quarter (100)
        assertThat(counts.get("beta-chat")).isBetween(10, 70);
        assertThat(counts.get("alpha-chat") + counts.get("beta-chat")).isEqualTo(REQUESTS);
    }

    @Test
    void should_send_a_quarter_to_the_target_of_weight_1_against_3() throws Exception {
        Map<String, Integer> counts = served("split-3-1");
        // 25 % of 400 ± 5 standard deviations (8.7 each), far from a tenth (40) and from a half (200)
        assertThat(counts.get("beta-chat")).isBetween(57, 143);
    }

    @Test
    void should_rewrite_the_model_upstream_and_say_where_it_went() throws Exception {
        HttpResponse<String> r = chat("gray-9-1");

        String channel = r.headers().firstValue("X-KeyPool-Channel").orElseThrow();
        String model = r.headers().firstValue("X-KeyPool-Model").orElseThrow();
        assertThat(model).isEqualTo(channel + "-chat");
        assertThat(r.headers().firstValue("X-Fallback-Level")).contains("0");
        assertThat(JSON.readTree(upstream.received().get(0).body()).get("model").asText()).isEqualTo(model);
    }

    @Test
    void should_list_the_groups_in_the_models() throws Exception {
        HttpResponse<String> r = get("/v1/models");

        assertThat(JSON.readTree(r.body()).get("data")).extracting(m -> m.get("id").asText())
                .contains("gray-9-1", "split-3-1", "alpha-chat", "beta-chat");
    }
}
