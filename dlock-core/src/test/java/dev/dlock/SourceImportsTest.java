package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.SourceImports;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The layering {@link ArchitectureTest} checks on the compiled classes, checked on the sources'
 * imports: an import made only for a Javadoc {@code {@link}} (or a static one of a constant the
 * compiler inlines) leaves no trace in a class file, yet a reader, and every tool that reads
 * imports, sees a dependency. So no import (static ones and Javadoc-only ones included) closes a
 * circle between the packages of dev.dlock.internal, and none in the loop's packages names a
 * backend. A name a comment must give across the layers is written fully qualified, not imported.
 */
class SourceImportsTest {

    private static final Path SOURCES = Path.of("src", "main", "java");

    /** One import of one source file, and the package it names (the name up to its first capitalised part). */
    record Import(String file, String fromPackage, String imported, String toPackage) {
        @Override
        public String toString() {
            return file + " imports " + imported;
        }
    }

    @Test
    void theInternalPackagesImportNoCycle() {
        assertThat(cycles(imports(SOURCES)).stream().map(SourceImportsTest::describe)).isEmpty();
    }

    @Test
    void theLoopImportsNoBackend() {
        assertThat(layerCrossings(imports(SOURCES))).isEmpty();
    }

    /** The check itself: a Javadoc-only import of a backend in the store SPI is a crossing and closes a circle. */
    @Test
    void aJavadocOnlyImportAcrossTheLayersIsFound() {
        List<Import> planted = importsOf("dev/dlock/internal/store/Planted.java", """
                package dev.dlock.internal.store;

                import dev.dlock.internal.redis.RedisNode;

                /** A failure of a {@link RedisNode}. */
                final class Planted {
                }
                """);
        List<Import> all = new ArrayList<>(imports(SOURCES));
        all.addAll(planted);

        assertThat(layerCrossings(all)).containsExactlyElementsOf(planted);
        assertThat(cycles(all)).anySatisfy(cycle -> assertThat(cycle).contains(planted.get(0)));
    }

    static List<Import> imports(Path sources) {
        return withPackages(SourceImports.of(sources));
    }

    static List<Import> importsOf(String file, String source) {
        return withPackages(SourceImports.of(file, source));
    }

    private static List<Import> withPackages(List<SourceImports.Import> imports) {
        return imports.stream()
                .map(i -> new Import(i.file(), i.fromPackage(), i.imported(), packageOf(i.imported())))
                .toList();
    }

    /** Imports from a package of the loop ({@link ArchitectureTest#THE_LOOP}) into a backend's. */
    static List<Import> layerCrossings(List<Import> imports) {
        return imports.stream()
                .filter(i -> inAny(i.fromPackage(), ArchitectureTest.THE_LOOP) && inAny(i.toPackage(), ArchitectureTest.BACKENDS))
                .toList();
    }

    /**
     * Each set of dev.dlock.internal packages that import one another in a circle, as the imports that
     * make it (the direction against the layering is usually the one of few imports).
     */
    static List<List<Import>> cycles(List<Import> imports) {
        Map<String, Set<String>> edges = new HashMap<>();
        for (Import i : imports) {
            if (isInternal(i.fromPackage()) && isInternal(i.toPackage()) && !i.fromPackage().equals(i.toPackage())) {
                edges.computeIfAbsent(i.fromPackage(), p -> new TreeSet<>()).add(i.toPackage());
            }
        }
        List<List<Import>> cycles = new ArrayList<>();
        for (Set<String> component : new StronglyConnected(edges).components()) {
            if (component.size() > 1) {
                cycles.add(imports.stream()
                        .filter(i -> component.contains(i.fromPackage()) && component.contains(i.toPackage())
                                && !i.fromPackage().equals(i.toPackage()))
                        .toList());
            }
        }
        return cycles;
    }

    /** A circle by its package to package edges: the imports of each, or how many when they are many. */
    static String describe(List<Import> cycle) {
        Map<String, List<Import>> edges = new TreeMap<>();
        cycle.forEach(i -> edges.computeIfAbsent(i.fromPackage() + " -> " + i.toPackage(), edge -> new ArrayList<>()).add(i));
        List<String> lines = new ArrayList<>();
        edges.forEach((edge, made) -> lines.add(edge + ": " + (made.size() <= 3 ? made : made.size() + " imports")));
        return String.join("\n", lines);
    }

    /** Tarjan's strongly connected components of a small package graph. */
    private static final class StronglyConnected {
        private final Map<String, Set<String>> edges;
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> lowest = new HashMap<>();
        private final Deque<String> stack = new ArrayDeque<>();
        private final List<Set<String>> components = new ArrayList<>();

        StronglyConnected(Map<String, Set<String>> edges) {
            this.edges = edges;
        }

        List<Set<String>> components() {
            new TreeSet<>(edges.keySet()).forEach(node -> {
                if (!index.containsKey(node)) {
                    visit(node);
                }
            });
            return components;
        }

        private void visit(String node) {
            index.put(node, index.size());
            lowest.put(node, index.get(node));
            stack.push(node);
            for (String next : edges.getOrDefault(node, Set.of())) {
                if (!index.containsKey(next)) {
                    visit(next);
                    lowest.put(node, Math.min(lowest.get(node), lowest.get(next)));
                } else if (stack.contains(next)) {
                    lowest.put(node, Math.min(lowest.get(node), index.get(next)));
                }
            }
            if (lowest.get(node).equals(index.get(node))) {
                Set<String> component = new TreeSet<>();
                String member;
                do {
                    member = stack.pop();
                    component.add(member);
                } while (!member.equals(node));
                components.add(component);
            }
        }
    }

    private static String packageOf(String imported) {
        List<String> parts = Arrays.asList(imported.split("\\."));
        int end = 0;
        while (end < parts.size() && !Character.isUpperCase(parts.get(end).charAt(0))) {
            end++;
        }
        return String.join(".", parts.subList(0, end));
    }

    private static boolean isInternal(String packageName) {
        return packageName.equals("dev.dlock.internal") || packageName.startsWith("dev.dlock.internal.");
    }

    /** In one of ArchUnit's package identifiers: {@code a.b} that package alone, {@code a.b..} it and those below. */
    private static boolean inAny(String packageName, String[] identifiers) {
        for (String identifier : identifiers) {
            boolean matches = identifier.endsWith("..")
                    ? packageName.equals(identifier.substring(0, identifier.length() - 2))
                            || packageName.startsWith(identifier.substring(0, identifier.length() - 1))
                    : packageName.equals(identifier);
            if (matches) {
                return true;
            }
        }
        return false;
    }

}
