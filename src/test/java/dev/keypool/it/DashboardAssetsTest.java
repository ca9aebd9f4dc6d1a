package dev.keypool.it;

import java.net.http.HttpResponse;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's files come from the jar under /admin/assets/: every file the page and its modules load is there,
 * with its content type, without the admin token (they hold no data); nothing but a plain name of that folder is.
 */
class DashboardAssetsTest extends GatewayTestSupport {

    /** {@code src="assets/x.js"}, {@code href="assets/x.css"} in the page; {@code from "./x.js"} in a module. */
    private static final Pattern REFERENCE = Pattern.compile("(?:src|href)=\"assets/([^\"]+)\"|from \"\\./([^\"]+)\"");

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                admin:
                  token: admin-secret-token
                """;
    }

    @Test
    void should_serve_every_file_the_page_loads_and_nothing_else() throws Exception {
        HttpResponse<String> page = get("/admin/");
        assertThat(page.statusCode()).isEqualTo(200);
        Set<String> files = new LinkedHashSet<>();
        Set<String> read = new LinkedHashSet<>();
        collect(page.body(), files);
        while (!read.containsAll(files)) {
            for (String file : Set.copyOf(files)) {
                if (read.add(file)) {
                    HttpResponse<String> answer = get("/admin/assets/" + file);
                    assertThat(answer.statusCode()).as(file).isEqualTo(200);
                    assertThat(answer.headers().firstValue("Content-Type").orElse(""))
                            .as(file).startsWith(file.endsWith(".css") ? "text/css" : "text/javascript");
                    collect(answer.body(), files);
                }
            }
        }
        assertThat(files).contains("uPlot.iife.min.js", "uPlot.min.css", "dashboard.js", "usage.js", "tenants.js");
        assertThat(get("/admin/assets/uPlot-LICENSE.txt").body()).contains("MIT License");

        for (String outside : new String[] {"/admin/assets/..%2F..%2Fkeypool.yaml", "/admin/assets/missing.js",
                "/admin/assets/.hidden.js", "/admin/assets/index.class"}) {
            HttpResponse<String> refused = get(outside);
            assertThat(refused.statusCode()).as(outside).isEqualTo(404);
            assertThat(refused.body()).as(outside).contains("\"error\"");
        }
    }

    private static void collect(String text, Set<String> files) {
        Matcher m = REFERENCE.matcher(text);
        while (m.find()) {
            files.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
    }
}
