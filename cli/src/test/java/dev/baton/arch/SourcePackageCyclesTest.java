package dev.baton.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * No package cycles, as the sources' imports show them: the check {@link ArchitectureTest} cannot
 * make, because a package that uses only another's string constants keeps no reference to it in its
 * class files. Packages are grouped as there (a package with its {@code internals}); an edge is an
 * {@code import} (plain or static) of a dev.baton class from another group.
 */
class SourcePackageCyclesTest {

    private static final Pattern PACKAGE = Pattern.compile("^package (dev\\.baton\\.[\\w.]+);", Pattern.MULTILINE);
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?(dev\\.baton(?:\\.[a-z]\\w*)+)\\.([A-Z]\\w*)[\\w.*]*;", Pattern.MULTILINE);

    @Test
    void shouldImportWithoutCyclesBetweenPackages() {
        Map<String, Map<String, String>> edges = importsBetweenGroups(mainSources());
        assertThat(edges.size()).as("packages read from the modules' sources").isGreaterThan(30);

        List<List<String>> cycles = new StronglyConnected(edges).cycles();

        assertThat(cycles).as(() -> describe(cycles, edges)).isEmpty();
    }

    /** What a cycle looks like to this check: proof that it can fail. */
    @Test
    void shouldFindACycleOfTwoPackages() {
        Map<String, Map<String, String>> edges = Map.of(
                "dev.baton.a", Map.of("dev.baton.b", "A.java imports dev.baton.b.B"),
                "dev.baton.b", Map.of("dev.baton.a", "B.java imports dev.baton.a.A"),
                "dev.baton.c", Map.of("dev.baton.a", "C.java imports dev.baton.a.A"));

        assertThat(new StronglyConnected(edges).cycles()).containsExactly(List.of("dev.baton.a", "dev.baton.b"));
    }

    private static List<Path> mainSources() {
        Path root = Path.of("").toAbsolutePath().getParent();
        try (Stream<Path> modules = Files.list(root)) {
            List<Path> sources = new ArrayList<>();
            for (Path module : modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).toList()) {
                try (Stream<Path> files = Files.walk(module)) {
                    files.filter(f -> f.toString().endsWith(".java")).forEach(sources::add);
                }
            }
            return sources;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Group → imported group → one import that makes the edge (for the failure message). */
    private static Map<String, Map<String, String>> importsBetweenGroups(List<Path> sources) {
        Map<String, Map<String, String>> edges = new TreeMap<>();
        for (Path source : sources) {
            String text = read(source);
            Matcher pkg = PACKAGE.matcher(text);
            if (!pkg.find()) {
                continue;
            }
            String from = group(pkg.group(1));
            Map<String, String> out = edges.computeIfAbsent(from, k -> new TreeMap<>());
            Matcher imp = IMPORT.matcher(text);
            while (imp.find()) {
                String to = group(imp.group(1));
                if (!to.equals(from)) {
                    out.putIfAbsent(to, source.getFileName() + " imports " + imp.group(1) + "." + imp.group(2));
                }
            }
        }
        return edges;
    }

    private static String group(String pkg) {
        return pkg.replaceFirst("\\.internals(\\..*)?$", "");
    }

    private static String read(Path source) {
        try {
            return Files.readString(source);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String describe(List<List<String>> cycles, Map<String, Map<String, String>> edges) {
        StringBuilder out = new StringBuilder("package cycles in the sources' imports; break each (move the shared type down):");
        for (List<String> cycle : cycles) {
            out.append("\n  ").append(cycle);
            for (String from : cycle) {
                edges.getOrDefault(from, Map.of()).forEach((to, why) -> {
                    if (cycle.contains(to)) {
                        out.append("\n    ").append(from).append(" -> ").append(to).append(": ").append(why);
                    }
                });
            }
        }
        return out.toString();
    }

    /** Tarjan's strongly connected components; each of two or more packages is a cycle. */
    private static final class StronglyConnected {
        private final Map<String, Map<String, String>> edges;
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> low = new HashMap<>();
        private final Deque<String> stack = new ArrayDeque<>();
        private final List<List<String>> cycles = new ArrayList<>();

        StronglyConnected(Map<String, Map<String, String>> edges) {
            this.edges = edges;
        }

        List<List<String>> cycles() {
            new TreeSet<>(edges.keySet()).forEach(p -> {
                if (!index.containsKey(p)) {
                    visit(p);
                }
            });
            return cycles;
        }

        private void visit(String p) {
            index.put(p, index.size());
            low.put(p, index.get(p));
            stack.push(p);
            for (String q : edges.getOrDefault(p, Map.of()).keySet()) {
                if (!index.containsKey(q)) {
                    visit(q);
                    low.put(p, Math.min(low.get(p), low.get(q)));
                } else if (stack.contains(q)) {
                    low.put(p, Math.min(low.get(p), index.get(q)));
                }
            }
            if (low.get(p).equals(index.get(p))) {
                TreeSet<String> component = new TreeSet<>();
                String q;
                do {
                    q = stack.pop();
                    component.add(q);
                } while (!q.equals(p));
                if (component.size() > 1) {
                    cycles.add(List.copyOf(component));
                }
            }
        }
    }
}
