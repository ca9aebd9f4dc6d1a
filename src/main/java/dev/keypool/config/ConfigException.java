package dev.keypool.config;

import java.util.List;

/**
 * {@code keypool.yaml} cannot be used. The message names the file and lists every problem on its own line,
 * so one failed start shows the operator everything to fix; {@link #problems()} gives the same lines to code.
 */
public final class ConfigException extends RuntimeException {

    private final List<String> problems;

    public ConfigException(String source, List<String> problems) {
        super(message(source, problems));
        this.problems = List.copyOf(problems);
    }

    /** Each {@code <path>: <what is wrong>}, in the order they were found. */
    public List<String> problems() {
        return problems;
    }

    private static String message(String source, List<String> problems) {
        StringBuilder text = new StringBuilder("Invalid KeyPool configuration in ").append(source).append(':');
        problems.forEach(p -> text.append("\n  - ").append(p));
        return text.toString();
    }
}
