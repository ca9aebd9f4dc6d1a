package dev.keypool.deploy;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.keypool.config.ConfigLoader;
import dev.keypool.config.GatewayConfig;
import dev.keypool.testing.DeploySettings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The deployment files (deploy/) hold what ClusterTest runs (DeploySettings), so that they cannot drift from it: the
 * port, the health paths, the environment names keypool.yaml reads, the image's JVM flags, nginx.conf's upstreams and
 * its keep-alive to them, and the ConfigMap's copy of keypool.yaml. No container engine or cluster runs them here;
 * each file is parsed and compared.
 */
class DeployFilesTest {

    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Path DEPLOY = DeploySettings.DEPLOY;
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Z0-9_]+)(:-[^}]*)?}");
    private static final List<String> INSTANCES = List.of("keypool-a", "keypool-b");

    @Test
    void should_give_each_compose_instance_what_keypool_yaml_reads_and_the_image_flags() throws IOException {
        JsonNode services = yaml(DEPLOY.resolve("compose.yaml")).path("services");
        assertThat(names(services)).containsExactlyInAnyOrder("keypool-a", "keypool-b", "redis", "postgres", "nginx");
        for (String name : INSTANCES) {
            JsonNode service = services.path(name);
            Set<String> environment = names(service.path("environment"));
            assertThat(environment).as(name).containsAll(requiredVariables()).contains("KEYPOOL_INSTANCE_ID");
            assertThat(service.at("/environment/KEYPOOL_INSTANCE_ID").asText()).isEqualTo(name);
            assertThat(service.at("/environment/JAVA_OPTS").asText()).isEqualTo(dockerfileJavaOptions());
            assertThat(texts(service.path("expose"))).containsExactly(String.valueOf(DeploySettings.PORT));
            assertThat(texts(service.path("volumes"))).contains("./keypool.yaml:/app/keypool.yaml:ro");
            assertThat(String.join(" ", texts(service.at("/healthcheck/test"))))
                    .contains("/dev/tcp/127.0.0.1/" + DeploySettings.PORT).contains(DeploySettings.READY_PATH);
        }
        assertThat(texts(services.at("/nginx/volumes"))).contains("./nginx.conf:/etc/nginx/nginx.conf:ro");
        assertThat(texts(services.at("/nginx/ports"))).containsExactly(DeploySettings.PORT + ":" + DeploySettings.PORT);
        // the versions of Debian's servers that ClusterTest runs
        assertThat(services.at("/redis/image").asText()).isEqualTo("redis:7.0");
        assertThat(services.at("/postgres/image").asText()).isEqualTo("postgres:15");
        assertThat(services.at("/nginx/image").asText()).isEqualTo("nginx:1.22");
    }

    @Test
    void should_run_the_fixture_flags_as_the_image_does() throws IOException {
        assertThat(List.of(dockerfileJavaOptions().split(" "))).containsAll(DeploySettings.IMAGE_JVM_FLAGS);
    }

    @Test
    void should_show_in_the_readme_the_command_the_image_runs() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        Matcher command = Pattern.compile("(?m)^java ((?:[^\\n]*\\\\\\n)*[^\\n]*?) -jar target/keypool\\.jar$")
                .matcher(readme);
        assertThat(command.find()).as("README.md: the java command of the image").isTrue();
        assertThat(List.of(command.group(1).replace("\\\n", " ").trim().split("\\s+")))
                .containsExactly(dockerfileJavaOptions().split(" "));
    }

    @Test
    void should_make_the_image_aot_cache_in_its_runtime_stage_with_the_flags_it_runs_with() throws IOException {
        String dockerfile = Files.readString(Path.of("Dockerfile"));
        int runtimeStage = dockerfile.lastIndexOf("\nFROM ");
        String build = dockerfile.substring(0, runtimeStage);
        String runtime = dockerfile.substring(runtimeStage);
        // a cache holds only for the JVM that made it: none from the build stage's JDK
        assertThat(build).containsPattern("(?m)^RUN mvn .*package.* -Daot\\.skip=true");
        // the runtime's JVM has the AOT cache (Java 25+)
        assertThat(runtime).containsPattern("\nFROM eclipse-temurin:25");
        int flags = runtime.indexOf("\nENV JAVA_OPTS=");
        int training = runtime.indexOf("\nRUN bash deploy/aot-cache.sh target/keypool.aot\n");
        assertThat(flags).as("ENV JAVA_OPTS in the runtime stage").isPositive();
        assertThat(training).as("the training run, with the JAVA_OPTS the image runs with").isGreaterThan(flags);
        assertThat(runtime).contains("\nENV AOT_OPTS=\"-XX:AOTCache=/app/target/keypool.aot\"\n")
                .contains("exec java $AOT_OPTS $JAVA_OPTS -jar ");
    }

    @Test
    void should_balance_over_the_compose_instances_on_their_port() throws IOException {
        String nginx = Files.readString(DEPLOY.resolve("nginx.conf"));
        List<String> servers = new ArrayList<>();
        Matcher server = Pattern.compile("(?m)^\\s*server\\s+(\\S+);").matcher(nginx);
        while (server.find()) {
            servers.add(server.group(1));
        }
        assertThat(servers).containsExactly("keypool-a:" + DeploySettings.PORT, "keypool-b:" + DeploySettings.PORT);
        assertThat(nginx).contains("listen " + DeploySettings.PORT + ";").contains("proxy_buffering off;");
    }

    @Test
    void should_keep_connections_to_the_instances_open_and_let_go_of_idle_ones_before_an_instance_closes_them()
            throws IOException {
        String nginx = Files.readString(DEPLOY.resolve("nginx.conf"));
        Matcher upstream = Pattern.compile("(?s)upstream keypool \\{(.*?)}").matcher(nginx);
        assertThat(upstream.find()).as("the upstream block").isTrue();
        assertThat(upstream.group(1)).containsPattern("(?m)^\\s*keepalive \\d+;");
        assertThat(nginx).contains("proxy_http_version 1.1;").contains("proxy_set_header Connection \"\";");

        Matcher idle = Pattern.compile("(?m)^\\s*keepalive_timeout (\\d+)s;").matcher(upstream.group(1));
        assertThat(idle.find()).as("keepalive_timeout in the upstream block").isTrue();
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of("application.properties"))) {
            properties.load(in);
        }
        Duration instanceCloses = Duration.ofMillis(Long.parseLong(properties.getProperty("keypool.request-header-timeout-ms")));
        // a request nginx sends down a connection the instance is closing fails with a 502: nginx retries no POST
        assertThat(Duration.ofSeconds(Long.parseLong(idle.group(1)))).isLessThan(instanceCloses);
    }

    @Test
    void should_load_keypool_yaml_with_the_variables_compose_sets() throws IOException {
        Map<String, String> environment = new HashMap<>();
        yaml(DEPLOY.resolve("compose.yaml")).at("/services/keypool-a/environment").fields()
                .forEachRemaining(e -> environment.put(e.getKey(), "value-of-" + e.getKey()));
        environment.put("REDIS_URL", "redis://redis:6379");
        environment.put("DATABASE_URL", "postgresql://keypool:pw@postgres:5432/keypool");

        GatewayConfig config = new ConfigLoader(environment::get).load(DEPLOY.resolve("keypool.yaml"));

        assertThat(config.redis()).isNotNull();
        assertThat(config.channels()).singleElement().satisfies(c -> assertThat(c.probe()).isNotNull());
        assertThat(config.admin().token()).isNotNull();
    }

    @Test
    void should_run_the_same_keypool_yaml_and_variables_on_kubernetes() throws IOException {
        Path dir = DEPLOY.resolve("kubernetes");
        JsonNode configMap = yaml(dir.resolve("configmap.yaml"));
        assertThat(configMap.at("/data/keypool.yaml").asText()).isEqualTo(Files.readString(DEPLOY.resolve("keypool.yaml")));
        JsonNode secret = yaml(dir.resolve("secret.yaml"));
        assertThat(names(secret.path("stringData"))).containsAll(requiredVariables());

        JsonNode deployment = yaml(dir.resolve("deployment.yaml"));
        JsonNode container = deployment.at("/spec/template/spec/containers/0");
        assertThat(container.at("/ports/0/containerPort").asInt()).isEqualTo(DeploySettings.PORT);
        String portName = container.at("/ports/0/name").asText();
        assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo(DeploySettings.READY_PATH);
        assertThat(container.at("/readinessProbe/httpGet/port").asText()).isEqualTo(portName);
        assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo(DeploySettings.LIVE_PATH);
        assertThat(container.at("/livenessProbe/httpGet/port").asText()).isEqualTo(portName);
        assertThat(container.at("/envFrom/0/secretRef/name").asText()).isEqualTo(secret.at("/metadata/name").asText());
        Map<String, JsonNode> env = new HashMap<>();
        container.path("env").forEach(variable -> env.put(variable.path("name").asText(), variable));
        assertThat(env.get("KEYPOOL_INSTANCE_ID").at("/valueFrom/fieldRef/fieldPath").asText()).isEqualTo("metadata.name");
        assertThat(env.get("JAVA_OPTS").path("value").asText()).isEqualTo(dockerfileJavaOptions());
        Map<String, String> mounts = new HashMap<>();
        container.path("volumeMounts").forEach(m -> mounts.put(m.path("name").asText(), m.path("mountPath").asText()));
        assertThat(mounts).containsEntry("config", "/app/keypool.yaml").containsEntry("routes", "/app/routes");
        assertThat(deployment.at("/spec/template/spec/volumes").findValuesAsText("name"))
                .contains(configMap.at("/metadata/name").asText(), "keypool-routes");

        JsonNode service = yaml(dir.resolve("service.yaml"));
        assertThat(service.at("/spec/ports/0/port").asInt()).isEqualTo(DeploySettings.PORT);
        assertThat(service.at("/spec/ports/0/targetPort").asText()).isEqualTo(portName);
        JsonNode labels = deployment.at("/spec/template/metadata/labels");
        assertThat(service.at("/spec/selector")).isEqualTo(labels);
        assertThat(yaml(dir.resolve("pdb.yaml")).at("/spec/selector/matchLabels")).isEqualTo(labels);

        Set<String> files = new TreeSet<>();
        try (Stream<Path> all = Files.list(dir)) {
            all.map(f -> f.getFileName().toString())
                    .filter(f -> f.endsWith(".yaml") && !f.equals("kustomization.yaml")).forEach(files::add);
        }
        assertThat(texts(yaml(dir.resolve("kustomization.yaml")).path("resources"))).containsExactlyInAnyOrderElementsOf(files);
    }

    /** The variables deploy/keypool.yaml reads without a default: each deployment must set them. */
    private static Set<String> requiredVariables() throws IOException {
        Set<String> required = new HashSet<>();
        Matcher variable = VARIABLE.matcher(Files.readString(DEPLOY.resolve("keypool.yaml")));
        while (variable.find()) {
            if (variable.group(2) == null) {
                required.add(variable.group(1));
            }
        }
        assertThat(required).contains("REDIS_URL", "DATABASE_URL", "KEYPOOL_ADMIN_TOKEN");
        return required;
    }

    /** The Dockerfile's {@code ENV JAVA_OPTS="…"}: the image's flags. */
    private static String dockerfileJavaOptions() throws IOException {
        Matcher options = Pattern.compile("(?m)^ENV JAVA_OPTS=\"([^\"]+)\"").matcher(Files.readString(Path.of("Dockerfile")));
        assertThat(options.find()).as("ENV JAVA_OPTS in the Dockerfile").isTrue();
        return options.group(1);
    }

    private static JsonNode yaml(Path file) throws IOException {
        return YAML.readTree(file.toFile());
    }

    private static Set<String> names(JsonNode object) {
        Set<String> names = new TreeSet<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(node -> texts.add(node.asText()));
        return texts;
    }
}
