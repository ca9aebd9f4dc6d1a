package dev.keypool.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Calls of the admin API with a token, for the tests of /admin/*. */
final class AdminCalls {

    static final String TOKEN = "admin-secret-token";

    private final HttpClient http;
    private final String base;

    AdminCalls(HttpClient http, String base) {
        this.http = http;
        this.base = base;
    }

    HttpResponse<String> call(String method, String path, String body) throws Exception {
        return call(method, path, body, TOKEN);
    }

    HttpResponse<String> call(String method, String path, String body, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path) throws Exception {
        return call("POST", path, null);
    }

    HttpResponse<String> post(String path, String body) throws Exception {
        return call("POST", path, body);
    }

    HttpResponse<String> get(String path) throws Exception {
        return call("GET", path, null);
    }
}
