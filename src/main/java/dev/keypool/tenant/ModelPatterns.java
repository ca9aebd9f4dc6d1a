package dev.keypool.tenant;

import java.util.List;
import java.util.regex.Pattern;

/** The models a tenant may use (design §7 {@code models}): names where {@code *} stands for any characters; none = all. */
public final class ModelPatterns {

    private final List<Pattern> patterns;

    public ModelPatterns(List<String> models) {
        this.patterns = models.stream().map(ModelPatterns::compile).toList();
    }

    public boolean allows(String model) {
        return patterns.isEmpty() || patterns.stream().anyMatch(p -> p.matcher(model).matches());
    }

    private static Pattern compile(String glob) {
        StringBuilder regex = new StringBuilder();
        for (String part : glob.split("\\*", -1)) {
            if (!regex.isEmpty()) {
                regex.append(".*");
            }
            regex.append(Pattern.quote(part));
        }
        return Pattern.compile(regex.toString());
    }
}
