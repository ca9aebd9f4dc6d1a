package dev.keypool.config;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Names of channels or tenants: required, {@code [a-z0-9-]+} (they end up in URLs, headers and metric tags)
 * and unique. Remembers every name read, even a malformed one, so references to it do not add a second,
 * misleading "unknown channel" problem.
 */
final class UniqueNames {

    private static final Pattern NAME = Pattern.compile("[a-z0-9-]+");

    private final String kind;
    private final Set<String> seen = new LinkedHashSet<>();

    UniqueNames(String kind) {
        this.kind = kind;
    }

    Optional<String> read(ConfigNode node) {
        Optional<String> name = node.requiredText();
        name.ifPresent(n -> {
            if (!NAME.matcher(n).matches()) {
                node.problem("invalid " + kind + " name " + Problems.quote(n) + " (use a-z, 0-9 and '-')");
            }
            if (!seen.add(n)) {
                node.problem("duplicate " + kind + " name " + Problems.quote(n));
            }
        });
        return name;
    }

    Set<String> seen() {
        return Collections.unmodifiableSet(seen);
    }
}
