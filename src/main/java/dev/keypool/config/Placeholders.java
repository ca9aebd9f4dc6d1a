package dev.keypool.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replaces {@code ${NAME}} and {@code ${NAME:-default}} in one scalar from the environment, so keys and tokens
 * stay out of the file. Applied value by value on the parsed tree, which is what lets a missing variable be
 * reported with the path of the value that needs it.
 */
final class Placeholders {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}");

    /** Takes text as it is: values sent to the admin API are data, and must not read the gateway's environment. */
    static final Placeholders NONE = new Placeholders(null);

    private final Function<String, String> environment;

    Placeholders(Function<String, String> environment) {
        this.environment = environment;
    }

    /**
     * @param missing told the name of every variable that is unset and has no default
     * @return the text with every placeholder replaced, or empty when a variable was missing
     */
    Optional<String> resolve(String text, Consumer<String> missing) {
        if (environment == null) {
            return Optional.of(text);
        }
        List<String> unset = new ArrayList<>();
        String resolved = PLACEHOLDER.matcher(text).replaceAll(match -> {
            String value = environment.apply(match.group(1));
            String fallback = match.group(2);
            // like the shell's ":-": an empty variable takes the default too
            if ((value == null || value.isEmpty()) && fallback != null) {
                value = fallback;
            }
            if (value == null) {
                unset.add(match.group(1));
                return "";
            }
            return Matcher.quoteReplacement(value);
        });
        unset.forEach(missing);
        return unset.isEmpty() ? Optional.of(resolved) : Optional.empty();
    }
}
