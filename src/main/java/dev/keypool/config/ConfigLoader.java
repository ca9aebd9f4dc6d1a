package dev.keypool.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads {@code keypool.yaml} into a {@link GatewayConfig}, or fails with a {@link ConfigException} that lists
 * every problem: nothing half-configured is ever returned.
 */
public final class ConfigLoader {

    static final String PATH_PROPERTY = "keypool.config";
    static final String PATH_VARIABLE = "KEYPOOL_CONFIG";
    static final String DEFAULT_FILE = "keypool.yaml";

    private final Placeholders placeholders;
    private final UnaryOperator<ChannelConfig> adjustment;

    /** @param environment looks up {@code ${NAME}} placeholders; null for an unset variable */
    public ConfigLoader(Function<String, String> environment) {
        this(new Placeholders(Objects.requireNonNull(environment, "environment")), UnaryOperator.identity());
    }

    private ConfigLoader(Placeholders placeholders, UnaryOperator<ChannelConfig> adjustment) {
        this.placeholders = placeholders;
        this.adjustment = adjustment;
    }

    /**
     * This loader, each channel of a valid file then passed through {@code adjustment}: what the file means in the
     * process that reads it (the demo channel on a listener that speaks TLS).
     */
    public ConfigLoader adjusting(UnaryOperator<ChannelConfig> adjustment) {
        return new ConfigLoader(placeholders, adjustment);
    }

    public ConfigLoader() {
        this(System::getenv);
    }

    public GatewayConfig load(Path file) {
        String yaml;
        try {
            yaml = Files.readString(file);
        } catch (NoSuchFileException missing) {
            throw new ConfigException(file.toString(), List.of("file not found (looked at " + file.toAbsolutePath()
                    + "; set -D" + PATH_PROPERTY + " or " + PATH_VARIABLE + " to use another file)"));
        } catch (IOException unreadable) {
            throw new ConfigException(file.toString(), List.of("cannot read the file: " + unreadable));
        }
        return parse(yaml, file.toString());
    }

    public GatewayConfig parse(String yaml, String sourceName) {
        JsonNode tree = YamlTree.read(yaml, sourceName);
        Problems problems = new Problems();
        GatewayConfig config = new ConfigBinder().bind(ConfigNode.root(tree, problems, placeholders));
        if (!problems.isEmpty()) {
            throw new ConfigException(sourceName, problems.lines());
        }
        return config.withChannels(config.channels().stream().map(adjustment).toList());
    }

    /**
     * Where the service looks up {@code ${NAME}} placeholders: the environment, except that the name of a Camel or
     * KeyPool setting ({@code CAMEL_SERVER_PORT}, {@code KEYPOOL_…}) is read as that setting
     * ({@code camel.server.port}) first, so that the file follows a setting however it was given: {@code -D}, the
     * environment or application.properties. Without this, {@code ${CAMEL_SERVER_PORT:-8080}} in the default file
     * would miss a port given as {@code -Dcamel.server.port}.
     *
     * @param settings the service's resolved setting by property name; null when unset
     */
    public static Function<String, String> variables(Function<String, String> settings, Function<String, String> environment) {
        return name -> {
            if (name.startsWith("CAMEL_") || name.startsWith("KEYPOOL_")) {
                String setting = settings.apply(name.toLowerCase(Locale.ROOT).replace('_', '.'));
                if (setting != null && !setting.isBlank()) {
                    return setting;
                }
            }
            return environment.apply(name);
        };
    }

    /** The path the service should read: system property keypool.config, else env KEYPOOL_CONFIG, else ./keypool.yaml */
    public static Path configuredPath(Function<String, String> systemProperty, Function<String, String> environment) {
        String path = variables(systemProperty, environment).apply(PATH_VARIABLE);
        return path == null || path.isBlank() ? Path.of(DEFAULT_FILE) : Path.of(path.trim());
    }
}
