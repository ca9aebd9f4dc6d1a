package dev.keypool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packages of src/main as the layers drawn in docs/architecture.md (section Layers): each layer uses only the
 * layers below it, the packages do not use each other in a circle, and Camel, Vert.x and the libraries that come with
 * them stay in the Camel layers, so that the domain stays plain Java, unit-tested without Camel. Rules are written by
 * package pattern ({@code dev.keypool.camel..}), so that a package split into sub-packages keeps its layer.
 */
class LayersTest {

    /** The layers, top to bottom, and the packages under {@code dev.keypool} each holds (sub-packages included). */
    private static final Map<String, List<String>> LAYERS = new LinkedHashMap<>();

    static {
        // the keypool Camel component: a host's route into the service; the service never knows it is embedded. And
        // LangChain4j's chat models over it
        LAYERS.put("embedding", List.of("component", "langchain4j"));
        // routes' beans, the Main class, the @Configuration, the HTTP edge: the only place Camel and Vert.x are known
        LAYERS.put("camel", List.of("camel"));
        // one library each, behind interfaces of the layers below: Redis (Lettuce) in redis, the database (JDBC,
        // Flyway, HikariCP) in store, Micrometer in metrics
        LAYERS.put("adapters", List.of("redis", "store", "metrics"));
        // a request and the operators' actions on the gateway: channels and their chains, the attempt, admin, probes
        LAYERS.put("request", List.of("gateway", "admin", "probe", "fault", "alert"));
        // keypool.yaml bound and validated into the settings of the domain
        LAYERS.put("configuration", List.of("config"));
        // the decisions: which key, is the breaker open, is there room in the quota, may the tenant go on; and how a
        // request reads in the other format
        LAYERS.put("domain", List.of("pool", "quota", "breaker", "tenant", "batch", "routing", "translate"));
        // what the domain is built from: counting windows, state events, durable files, hashing
        LAYERS.put("base", List.of("auth", "events", "state", "window"));
    }

    /** The layers that may use Camel and Vert.x. */
    private static final List<String> CAMEL_LAYERS = List.of("embedding", "camel");

    /**
     * Known exception, one: a tenant's own in-flight cap is an {@code InFlightLimit}, the gateway's admission counter,
     * so {@code tenant} (domain) uses {@code gateway} (request), which uses {@code tenant} back. Moving
     * {@code InFlightLimit} and its {@code HeapPressure} below both (with their tests) removes it.
     */
    private static final DescribedPredicate<JavaClass> TENANT = equivalentTo(dev.keypool.tenant.Tenant.class);
    private static final DescribedPredicate<JavaClass> IN_FLIGHT_LIMIT =
            equivalentTo(dev.keypool.gateway.InFlightLimit.class);

    /** src/main's classes, read from where Maven compiled them: a package import would look through every jar too. */
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPath(Path.of("target/classes"));

    @Test
    void should_let_each_layer_use_only_the_layers_below_it() {
        layers().check(MAIN);
    }

    @Test
    void should_keep_camel_and_vertx_out_of_every_layer_below_camel() {
        noClasses().that().resideOutsideOfPackages(packages(CAMEL_LAYERS))
                .should().dependOnClassesThat().resideInAnyPackage(
                        "org.apache.camel..",
                        "io.vertx..",
                        // Vert.x's network library, camel-http's HTTP client, camel-kafka's client
                        "io.netty..", "org.apache.hc..", "org.apache.kafka..")
                .because("the domain is plain Java, unit-tested without Camel (docs/architecture.md)")
                .check(MAIN);
    }

    @Test
    void should_keep_redis_and_micrometer_in_their_adapters() {
        noClasses().that().resideOutsideOfPackages(packages(List.of("adapters", "camel", "embedding")))
                .should().dependOnClassesThat().resideInAnyPackage("io.lettuce..", "io.micrometer..")
                .because("the layers below see Redis and metrics only through their own interfaces and events")
                .check(MAIN);
    }

    /** langchain4j-core is an optional dependency: the gateway must start, and the component work, without it. */
    @Test
    void should_keep_langchain4j_in_its_own_package() {
        noClasses().that().resideOutsideOfPackage("dev.keypool.langchain4j..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.langchain4j..", "dev.keypool.langchain4j..")
                .because("langchain4j-core is optional: only an application using KeyPoolChatModel brings it (pom.xml)")
                .check(MAIN);
    }

    @Test
    void should_have_no_circle_between_packages() {
        slices().matching("dev.keypool.(*)..").should().beFreeOfCycles()
                .ignoreDependency(TENANT, IN_FLIGHT_LIMIT)
                .check(MAIN);
    }

    @Test
    void should_draw_every_package_in_its_layer_in_the_architecture_document() throws IOException {
        Map<String, TreeSet<String>> drawn = drawnLayers(Files.readAllLines(Path.of("docs/architecture.md")));
        Map<String, TreeSet<String>> present = new LinkedHashMap<>();
        TreeSet<String> existing = new TreeSet<>();
        MAIN.forEach(c -> existing.add(c.getPackageName().replaceFirst("^dev\\.keypool\\.", "").split("\\.")[0]));
        LAYERS.forEach((layer, packages) -> present.put(layer,
                new TreeSet<>(packages.stream().filter(existing::contains).toList())));
        assertThat(drawn).isEqualTo(present);
    }

    @Test
    void should_read_the_layers_from_the_table_of_the_layers_section() {
        List<String> document = List.of("# Architecture", "| layer | packages |", "|---|---|",
                "| not | `this` |", "### Layers", "text", "| layer, top to bottom | packages | libraries |",
                "|---|---|---|", "| camel | `camel`, `component` | Camel |", "| base | `window` | |", "", "## Next",
                "| other | `table` |");
        assertThat(drawnLayers(document)).containsExactly(
                Map.entry("camel", new TreeSet<>(List.of("camel", "component"))),
                Map.entry("base", new TreeSet<>(List.of("window"))));
    }

    private static LayeredArchitecture layers() {
        LayeredArchitecture architecture = layeredArchitecture().consideringOnlyDependenciesInLayers();
        List<String> names = new ArrayList<>(LAYERS.keySet());
        for (String name : names) {
            architecture = architecture.layer(name).definedBy(packages(List.of(name)));
        }
        for (int i = 0; i < names.size() - 1; i++) {
            architecture = architecture.whereLayer(names.get(i))
                    .mayOnlyAccessLayers(names.subList(i + 1, names.size()).toArray(String[]::new));
        }
        return architecture.whereLayer(names.get(names.size() - 1)).mayNotAccessAnyLayer()
                .ensureAllClassesAreContainedInArchitecture()
                .ignoreDependency(TENANT, IN_FLIGHT_LIMIT);
    }

    /** The package patterns of the named layers. */
    private static String[] packages(List<String> layers) {
        return layers.stream().flatMap(layer -> LAYERS.get(layer).stream())
                .map(p -> "dev.keypool." + p + "..").toArray(String[]::new);
    }

    private static final Pattern CODE = Pattern.compile("`([a-z0-9.]+)`");

    /** The first table after the heading "Layers": its first column names the layer, its second the packages. */
    private static Map<String, TreeSet<String>> drawnLayers(List<String> document) {
        Map<String, TreeSet<String>> layers = new LinkedHashMap<>();
        boolean inSection = false;
        for (String line : document) {
            if (line.startsWith("#")) {
                inSection = line.matches("#+ Layers\\s*");
            } else if (inSection && line.startsWith("|") && !line.matches("\\|[-| :]+\\|?")) {
                String[] cells = line.split("\\|");
                if (cells.length > 2 && CODE.matcher(cells[2]).find()) {
                    TreeSet<String> packages = new TreeSet<>();
                    Matcher code = CODE.matcher(cells[2]);
                    while (code.find()) {
                        packages.add(code.group(1));
                    }
                    layers.put(cells[1].trim(), packages);
                }
            } else if (inSection && !layers.isEmpty() && line.isBlank()) {
                inSection = false;
            }
        }
        return layers;
    }
}
