package dev.keypool;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the documentation honest as the code moves:
 * <ul>
 *   <li>README.md stays a page a user reads to the end: at most {@value #README_MAX_LINES} lines;</li>
 *   <li>every relative link of README.md, bench/README.md and the Markdown documents under docs/ points at a file
 *       that exists, and every {@code #anchor} (in the same document or another Markdown file) at a heading that
 *       exists, by GitHub's rule: the heading's text in lower case, punctuation dropped, spaces turned into '-',
 *       and "-1", "-2", ... added to repeated headings; or an explicit {@code <a id="..."></a>};</li>
 *   <li>every citation of the behaviour contract in code and the files around it ({@code src/}, {@code routes/},
 *       {@code bench/}, {@code deploy/}, {@code examples/}, {@code pom.xml}, {@code Dockerfile}, the settings files)
 *       names a section that docs/design.md has, and none cites a document the repository does not hold
 *       ({@code SPEC §n}, the contract before docs/design.md took it over). The citation form is {@code design §n} for a section, whose heading in design.md is
 *       {@code ## n. Title}, and {@code design §n.m} for a numbered subsection, whose heading is
 *       {@code ### n.m Title}.</li>
 * </ul>
 */
class DocsConsistencyTest {

    private static final int README_MAX_LINES = 400;
    private static final Pattern LINK = Pattern.compile("!?\\[([^\\]]*)]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
    private static final Pattern CITATION = Pattern.compile("(design|SPEC) §(\\d+(?:\\.\\d+)?)");
    private static final List<String> CITING_DIRS = List.of("src", "routes", "bench", "deploy", "examples");
    private static final List<String> CITING_FILES = List.of("pom.xml", "Dockerfile", "application.properties", "keypool.yaml");
    /** Generated or installed, not written here: benchmark outputs, npm packages, build output. */
    private static final Set<String> SKIPPED_DIRS = Set.of("results", "node_modules", "target");
    private static final Pattern SECTION_NUMBER = Pattern.compile("^§?(\\d+(?:\\.\\d+)?)[.\\s]");

    @Test
    void should_keep_the_readme_under_400_lines() throws IOException {
        assertThat(Files.readAllLines(Path.of("README.md"))).hasSizeLessThanOrEqualTo(README_MAX_LINES);
    }

    @Test
    void should_find_every_relative_link_and_anchor_of_the_documents() throws IOException {
        assertThat(brokenLinks(Path.of("."))).isEmpty();
    }

    @Test
    void should_find_every_cited_design_section_in_design_md() throws IOException {
        assertThat(missingCitations(Path.of("."))).isEmpty();
    }

    // the checks themselves, on documents made for the purpose: each must see what it is there to see

    @Test
    void should_derive_anchors_as_github_does() {
        assertThat(anchors(List.of("# Title", "## 11. Shared state across instances (Redis)", "### `stream_options.x` is added",
                "## Notes", "## Notes", "```", "# not a heading", "```", "<a id=\"s7\"></a>",
                "### The keypool component (embedded)")))
                .containsExactly("title", "11-shared-state-across-instances-redis", "stream_optionsx-is-added", "notes",
                        "notes-1", "s7", "the-keypool-component-embedded");
    }

    @Test
    void should_report_a_missing_file_and_a_missing_anchor(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("docs"));
        Files.writeString(dir.resolve("docs/a.md"), "# A\n\n## Present\n");
        Files.writeString(dir.resolve("README.md"), String.join("\n",
                "[ok](docs/a.md#present) [self](#readme) [web](https://example.com/x#y)",
                "[gone](docs/b.md) [no anchor](docs/a.md#absent) [no local anchor](#nowhere)",
                "`[in code](docs/c.md)`", "```", "[in a block](docs/d.md)", "```", "# README"));

        assertThat(brokenLinks(dir)).containsExactlyInAnyOrder(
                "README.md: docs/b.md (no such file)",
                "README.md: docs/a.md#absent (no such heading)",
                "README.md: #nowhere (no such heading)");
    }

    @Test
    void should_report_a_citation_of_a_section_design_md_lacks(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("docs"));
        Files.createDirectories(dir.resolve("src/main/java"));
        Files.createDirectories(dir.resolve("routes"));
        Files.writeString(dir.resolve("docs/design.md"), "# Design\n\n## 1. Configuration\n\n### 1.2 Files\n\n## 7. Tenants\n");
        // written with an escaped '§', so that this file cites nothing itself
        Files.writeString(dir.resolve("src/main/java/A.java"), "/** design \u00a77 and design \u00a71.2, design \u00a79. */");
        Files.writeString(dir.resolve("routes/a.camel.yaml"), "# design \u00a71, design \u00a71.3\n");
        Files.createDirectories(dir.resolve("bench/results"));
        Files.writeString(dir.resolve("bench/run.sh"), "# design \u00a77, SPEC \u00a77\n");
        Files.writeString(dir.resolve("bench/results/out.txt"), "design \u00a742\n");
        Files.writeString(dir.resolve("pom.xml"), "<!-- design \u00a76 -->\n");

        assertThat(missingCitations(dir)).containsExactlyInAnyOrder(
                "src/main/java/A.java: design \u00a79", "routes/a.camel.yaml: design \u00a71.3",
                "bench/run.sh: SPEC \u00a77", "pom.xml: design \u00a76");
    }

    private static List<Path> documents(Path root) throws IOException {
        List<Path> docs = new ArrayList<>();
        for (String file : List.of("README.md", "bench/README.md")) {
            if (Files.isRegularFile(root.resolve(file))) {
                docs.add(root.resolve(file));
            }
        }
        Path docsDir = root.resolve("docs");
        if (Files.isDirectory(docsDir)) {
            try (Stream<Path> files = Files.walk(docsDir)) {
                files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(docs::add);
            }
        }
        return docs;
    }

    private static List<String> brokenLinks(Path root) throws IOException {
        Map<Path, Set<String>> anchorsByFile = new HashMap<>();
        List<String> broken = new ArrayList<>();
        for (Path doc : documents(root)) {
            String name = root.relativize(doc).toString().replace('\\', '/');
            for (String target : linkTargets(Files.readAllLines(doc))) {
                if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                    continue;   // http:, https:, mailto: and the like are not the repository's to check
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path linked = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
                if (!Files.exists(linked)) {
                    broken.add(name + ": " + target + " (no such file)");
                    continue;
                }
                if (anchor != null && linked.toString().endsWith(".md")) {
                    Set<String> anchors = anchorsByFile.computeIfAbsent(linked, DocsConsistencyTest::anchorsOf);
                    if (!anchors.contains(anchor)) {
                        broken.add(name + ": " + target + " (no such heading)");
                    }
                }
            }
        }
        return broken;
    }

    private static List<String> linkTargets(List<String> lines) {
        List<String> targets = new ArrayList<>();
        boolean inFence = false;
        for (String line : lines) {
            if (FENCE.matcher(line).find()) {
                inFence = !inFence;
                continue;
            }
            if (inFence) {
                continue;
            }
            Matcher m = LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
            while (m.find()) {
                targets.add(m.group(2));
            }
        }
        return targets;
    }

    private static Set<String> anchorsOf(Path markdown) {
        try {
            return anchors(Files.readAllLines(markdown));
        } catch (IOException e) {
            throw new IllegalStateException(markdown.toString(), e);
        }
    }

    /**
     * GitHub's heading anchors in document order, and the explicit ones ({@code <a id="s7"></a>}); headings inside
     * fenced code are no headings.
     */
    private static Set<String> anchors(List<String> lines) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inFence = false;
        for (String line : lines) {
            if (FENCE.matcher(line).find()) {
                inFence = !inFence;
                continue;
            }
            if (inFence) {
                continue;
            }
            Matcher html = HTML_ANCHOR.matcher(INLINE_CODE.matcher(line).replaceAll(""));
            while (html.find()) {
                anchors.add(html.group(1));
            }
            Matcher heading = HEADING.matcher(line);
            if (!heading.matches()) {
                continue;
            }
            String slug = slug(heading.group(2));
            int count = seen.merge(slug, 1, Integer::sum);
            anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
        }
        return anchors;
    }

    private static String slug(String headingText) {
        String text = headingText.replaceAll("!?\\[([^\\]]*)]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
        StringBuilder slug = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
            } else if (c == ' ') {
                slug.append('-');
            }
        });
        return slug.toString();
    }

    private static List<String> missingCitations(Path root) throws IOException {
        Set<String> sections = designSections(root.resolve("docs/design.md"));
        Set<String> missing = new TreeSet<>();
        for (Path file : citingFiles(root)) {
            String text;
            try {
                text = Files.readString(file);
            } catch (MalformedInputException binary) {
                continue;
            }
            Matcher m = CITATION.matcher(text);
            while (m.find()) {
                if (m.group(1).equals("SPEC") || !sections.contains(m.group(2))) {
                    missing.add(root.relativize(file).toString().replace('\\', '/') + ": " + m.group());
                }
            }
        }
        return new ArrayList<>(missing);
    }

    private static List<Path> citingFiles(Path root) throws IOException {
        List<Path> found = new ArrayList<>();
        for (String dir : CITING_DIRS) {
            Path start = root.resolve(dir);
            if (!Files.isDirectory(start)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(start)) {
                files.filter(Files::isRegularFile)
                        .filter(f -> !skipped(start.relativize(f)))
                        .forEach(found::add);
            }
        }
        for (String file : CITING_FILES) {
            if (Files.isRegularFile(root.resolve(file))) {
                found.add(root.resolve(file));
            }
        }
        return found;
    }

    private static boolean skipped(Path relative) {
        for (Path part : relative) {
            if (SKIPPED_DIRS.contains(part.toString())) {
                return true;
            }
        }
        return false;
    }

    /** The numbers of design.md's numbered headings: "## 7. Tenants" is 7, "### 7.2 Borrowing" is 7.2. */
    private static Set<String> designSections(Path design) throws IOException {
        Set<String> sections = new TreeSet<>();
        boolean inFence = false;
        for (String line : Files.readAllLines(design)) {
            if (FENCE.matcher(line).find()) {
                inFence = !inFence;
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (inFence || !heading.matches()) {
                continue;
            }
            Matcher number = SECTION_NUMBER.matcher(heading.group(2) + " ");
            if (number.find()) {
                sections.add(number.group(1));
            }
        }
        return sections;
    }
}
