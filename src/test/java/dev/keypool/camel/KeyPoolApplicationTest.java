package dev.keypool.camel;

import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.camel.Configuration;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.main.Main;
import org.apache.camel.support.scan.DefaultPackageScanClassResolver;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The gateway's Main names what a package scan of dev.keypool.camel would find, and no more. */
class KeyPoolApplicationTest {

    @Test
    void should_name_every_route_builder_and_configuration_a_package_scan_would_find() {
        DefaultPackageScanClassResolver scan = new DefaultPackageScanClassResolver();

        Set<Class<?>> routeBuilders = fromMain(scan.findImplementations(RoutesBuilder.class, "dev.keypool.camel"));
        Set<Class<?>> configurations = fromMain(scan.findAnnotated(Configuration.class, "dev.keypool.camel"));

        Main main = KeyPoolApplication.newMain();
        assertThat(main.configure().getBasePackageScan()).isNull();
        assertThat(main.configure().getRoutesBuilderClasses().split(","))
                .containsExactlyInAnyOrderElementsOf(names(routeBuilders));
        assertThat(main.configure().getConfigurationClasses().split(","))
                .containsExactlyInAnyOrderElementsOf(names(configurations));
        assertThat(configurations).containsExactly(GatewayConfiguration.class);
    }

    /** The classes of src/main: the scan also finds the test classes of the package. */
    private static Set<Class<?>> fromMain(Set<Class<?>> found) {
        Path mainClasses = location(KeyPoolApplication.class);
        return found.stream()
                .filter(type -> location(type).equals(mainClasses))
                .filter(type -> !type.isInterface() && !Modifier.isAbstract(type.getModifiers()))
                .collect(Collectors.toSet());
    }

    private static Path location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> names(Set<Class<?>> types) {
        return types.stream().map(Class::getName).toList();
    }
}
