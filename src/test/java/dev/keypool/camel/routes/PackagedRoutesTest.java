package dev.keypool.camel.routes;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.PackageScanResourceResolver;
import org.apache.camel.spi.Resource;
import org.apache.camel.support.PluginHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The packaged route files of a jar, listed from its directory of entries, are those Camel's own scan finds. */
class PackagedRoutesTest {

    @TempDir
    Path dir;

    @Test
    void should_find_in_a_jar_the_route_files_camels_resolver_finds() throws Exception {
        Path jar = dir.resolve("gateway.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (String entry : List.of("keypool/routes/", "keypool/routes/gateway.camel.yaml", "keypool/routes/admin.camel.yaml",
                    "keypool/routes/notes.txt", "keypool/routes/old/upstream.camel.yaml", "keypool/other.camel.yaml",
                    "dev/keypool/Some.class")) {
                out.putNextEntry(new JarEntry(entry));
                if (!entry.endsWith("/")) {
                    out.write(("- route: # " + entry + "\n").getBytes(StandardCharsets.UTF_8));
                }
                out.closeEntry();
            }
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null);
             DefaultCamelContext context = new DefaultCamelContext()) {
            PackageScanResourceResolver resolver = PluginHelper.getPackageScanResourceResolver(context);
            resolver.addClassLoader(loader);

            Collection<Resource> listed = PackagedRoutes.packaged(List.of(loader), resolver);
            Collection<Resource> scanned = resolver.findResources(PackagedRoutes.PACKAGED);

            assertThat(locations(listed)).containsExactly(
                    "file:" + jar.toAbsolutePath() + "!/keypool/routes/admin.camel.yaml",
                    "file:" + jar.toAbsolutePath() + "!/keypool/routes/gateway.camel.yaml");
            // Camel's resolver asks the loader of its own class too, which holds target/classes
            assertThat(locations(listed)).isEqualTo(locations(scanned.stream()
                    .filter(r -> r.getLocation().contains(jar.toString())).toList()));
            for (Resource resource : listed) {
                assertThat(resource.getScheme()).isEqualTo("jar");
                assertThat(text(resource)).isEqualTo(text(scanned.stream()
                        .filter(r -> r.getLocation().equals(resource.getLocation())).findFirst().orElseThrow()));
            }
        }
    }

    @Test
    void should_take_only_files_right_in_the_routes_directory() {
        assertThat(PackagedRoutes.isPackagedRouteFile("keypool/routes/gateway.camel.yaml")).isTrue();
        assertThat(PackagedRoutes.isPackagedRouteFile("keypool/routes/old/gateway.camel.yaml")).isFalse();
        assertThat(PackagedRoutes.isPackagedRouteFile("keypool/routes/gateway.yaml")).isFalse();
        assertThat(PackagedRoutes.isPackagedRouteFile("keypool/routes/")).isFalse();
        assertThat(PackagedRoutes.isPackagedRouteFile("keypool/gateway.camel.yaml")).isFalse();
    }

    private static List<String> locations(Collection<Resource> resources) {
        return resources.stream().map(Resource::getLocation).sorted(Comparator.naturalOrder()).toList();
    }

    private static String text(Resource resource) throws IOException {
        try (var in = resource.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
