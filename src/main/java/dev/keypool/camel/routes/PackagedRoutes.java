package dev.keypool.camel.routes;

import java.net.URI;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import org.apache.camel.CamelContext;
import org.apache.camel.RouteConfigurationsBuilder;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.spi.PackageScanResourceResolver;
import org.apache.camel.spi.Resource;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.scan.PackageScanJarResource;
import org.apache.camel.util.FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline's route files packaged in the jar ({@value #PACKAGED}), each one replaced by a route file of the same
 * name from the file system. The service runs its {@code routes/} as it always did (Camel Main loads them by
 * {@code camel.main.routes-include-pattern}) and falls back to the packaged file for any file that is missing there;
 * an application that embeds KeyPool gets the packaged routes, or its own copies from a directory it names
 * (the keypool component's {@code routesDirectory}).
 *
 * <p>One {@link RoutesBuilder} for all of them, handing each of Camel's phases (route configurations, routes,
 * templated routes) to the YAML builders of the files, so that a packaged {@code routeConfiguration} is there before
 * any route that uses it, as with files Camel loads itself.
 */
public class PackagedRoutes implements RoutesBuilder, RouteConfigurationsBuilder {

    private static final Logger LOG = LoggerFactory.getLogger(PackagedRoutes.class);

    /** Where the jar holds the route files (pom.xml copies routes/ there, the demo simulator aside). */
    public static final String PACKAGED = "classpath:keypool/routes/*.camel.yaml";
    /** {@value #PACKAGED}'s directory in the jar, and the names of its files. */
    static final String PACKAGED_DIR = "keypool/routes";
    private static final String ROUTE_FILE_SUFFIX = ".camel.yaml";
    /** The Camel Main setting whose files replace packaged ones of the same name. */
    static final String INCLUDE_PATTERN = "camel.main.routes-include-pattern";

    private final String replacements;
    private final boolean loadReplacements;
    private List<RoutesBuilder> builders;

    /** For Camel Main (the service): the files Main loads by {@value #INCLUDE_PATTERN} replace packaged ones. */
    public PackagedRoutes() {
        this(null, false);
    }

    /**
     * @param replacements     resource patterns, comma separated ({@code file:dir/*.camel.yaml}); null = the
     *                         {@value #INCLUDE_PATTERN} setting
     * @param loadReplacements whether to load the replacing files too (Main loads its own)
     */
    public PackagedRoutes(String replacements, boolean loadReplacements) {
        this.replacements = replacements;
        this.loadReplacements = loadReplacements;
    }

    @Override
    public void addRouteConfigurationsToCamelContext(CamelContext context) throws Exception {
        for (RoutesBuilder builder : builders(context)) {
            if (builder instanceof RouteConfigurationsBuilder configurations) {
                configurations.addRouteConfigurationsToCamelContext(context);
            }
        }
    }

    @Override
    public void updateRouteConfigurationsToCamelContext(CamelContext context) throws Exception {
        for (RoutesBuilder builder : builders(context)) {
            if (builder instanceof RouteConfigurationsBuilder configurations) {
                configurations.updateRouteConfigurationsToCamelContext(context);
            }
        }
    }

    @Override
    public void addRoutesToCamelContext(CamelContext context) throws Exception {
        for (RoutesBuilder builder : builders(context)) {
            builder.addRoutesToCamelContext(context);
        }
    }

    @Override
    public void addTemplatedRoutesToCamelContext(CamelContext context) throws Exception {
        for (RoutesBuilder builder : builders(context)) {
            builder.addTemplatedRoutesToCamelContext(context);
        }
    }

    @Override
    public Set<String> updateRoutesToCamelContext(CamelContext context) throws Exception {
        Set<String> ids = new LinkedHashSet<>();
        for (RoutesBuilder builder : builders(context)) {
            ids.addAll(builder.updateRoutesToCamelContext(context));
        }
        return ids;
    }

    /** The YAML builders of the files to load, found once. */
    private synchronized List<RoutesBuilder> builders(CamelContext context) throws Exception {
        if (builders == null) {
            builders = new ArrayList<>(PluginHelper.getRoutesLoader(context).findRoutesBuilders(resources(context)));
        }
        return builders;
    }

    /** The packaged files no replacement has the name of, then the replacements if this loads them. */
    List<Resource> resources(CamelContext context) throws Exception {
        PackageScanResourceResolver resolver = PluginHelper.getPackageScanResourceResolver(context);
        String patterns = replacements != null ? replacements
                : context.getPropertiesComponent().resolveProperty(INCLUDE_PATTERN).orElse("");
        List<Resource> replacing = new ArrayList<>();
        for (String pattern : patterns.split(",")) {
            String location = pattern.strip();
            if (location.endsWith("?optional=true")) {
                location = location.substring(0, location.length() - "?optional=true".length());
            }
            if (!location.isEmpty() && !location.equals(PACKAGED)) {
                replacing.addAll(resolver.findResources(location));
            }
        }
        Set<String> replaced = new TreeSet<>();
        replacing.forEach(r -> replaced.add(name(r)));
        List<Resource> answer = new ArrayList<>();
        Set<String> packagedNames = new TreeSet<>();
        for (Resource packaged : sorted(packaged(resolver))) {
            packagedNames.add(name(packaged));
            if (!replaced.contains(name(packaged))) {
                answer.add(packaged);
            }
        }
        if (loadReplacements) {
            answer.addAll(sorted(replacing));
        }
        LOG.info("KeyPool route files from the jar: {}; replaced by a file: {}",
                answer.stream().filter(r -> !replacing.contains(r)).map(PackagedRoutes::name).toList(),
                packagedNames.stream().filter(replaced::contains).toList());
        return answer;
    }

    /**
     * The packaged route files, as Camel's resolver finds them. A jar on the file system is listed from its directory
     * of entries: Camel's resolver reads a jar as one stream, inflating every entry of the 1.3 MiB jar to reach the
     * next, some 20 ms of a start's main thread, and sets the JIT compiling the inflater (bench/README.md, "Cold
     * start"). Anything else (a directory, a jar inside a jar) is left to Camel's resolver.
     */
    static Collection<Resource> packaged(PackageScanResourceResolver resolver) throws Exception {
        return packaged(resolver.getClassLoaders(), resolver);
    }

    /** The packaged route files {@code loaders} hold. */
    static Collection<Resource> packaged(Collection<ClassLoader> loaders, PackageScanResourceResolver resolver) throws Exception {
        Set<URL> dirs = new LinkedHashSet<>();
        for (ClassLoader loader : loaders) {
            dirs.addAll(Collections.list(loader.getResources(PACKAGED_DIR + "/")));
        }
        List<Resource> found = new ArrayList<>();
        for (URL dir : dirs) {
            String spec = dir.getFile();
            int separator = spec.indexOf("!/");
            if (!"jar".equals(dir.getProtocol()) || separator < 0 || !spec.startsWith("file:")
                    || spec.indexOf("!/", separator + 2) >= 0) {
                return resolver.findResources(PACKAGED);
            }
            try (JarFile jar = new JarFile(Path.of(URI.create(spec.substring(0, separator))).toFile())) {
                jar.stream().map(JarEntry::getName).filter(PackagedRoutes::isPackagedRouteFile)
                        .forEach(name -> found.add(new PackageScanJarResource("jar", dir, name)));
            }
        }
        return found;
    }

    /** An entry of {@value #PACKAGED}: a file right in the directory, named {@code *.camel.yaml}. */
    static boolean isPackagedRouteFile(String entry) {
        return entry.startsWith(PACKAGED_DIR + "/") && entry.endsWith(ROUTE_FILE_SUFFIX)
                && entry.indexOf('/', PACKAGED_DIR.length() + 1) < 0;
    }

    private static String name(Resource resource) {
        return FileUtil.stripPath(resource.getLocation());
    }

    private static List<Resource> sorted(Collection<Resource> resources) {
        return resources.stream().sorted(Comparator.comparing(PackagedRoutes::name)).toList();
    }
}
