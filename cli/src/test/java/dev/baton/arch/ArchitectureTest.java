package dev.baton.arch;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * The module layout as a test: which module may use which, no package cycles, every
 * {@code internals} package private to its module, the embedded broker and the benchmarks' peers
 * kept out of the libraries. It runs here because the command's test class path holds every
 * module's main classes; test classes are not checked (tests may use the embedded broker).
 *
 * <p>A module is known by its packages (the table below): a new top-level package needs a row, or
 * the layered rule does not see it.
 */
@AnalyzeClasses(packages = "dev.baton", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    /** Module → the packages it owns. The generated Avro classes ({@code dev.baton.events}) are the schemas module's. */
    private static final Map<String, String[]> MODULES = Map.of(
            "schemas", new String[] {"dev.baton.schemas..", "dev.baton.topics..", "dev.baton.metrics..", "dev.baton.events.."},
            "embedded", new String[] {"dev.baton.embedded.."},
            "dispatcher", new String[] {"dev.baton.dispatcher.."},
            "worker", new String[] {"dev.baton.worker.."},
            "streams-app", new String[] {"dev.baton.streams.."},
            "morsel-engine", new String[] {"dev.baton.morsel.."},
            "testkit", new String[] {"dev.baton.testkit.."},
            "bench", new String[] {"dev.baton.bench.."},
            "cli", new String[] {"dev.baton.cli.."});

    /** The libraries a service or a user's test may put on its class path. */
    private static final String[] LIBRARIES = {"schemas", "dispatcher", "worker", "streams-app", "morsel-engine"};

    @ArchTest
    static final ArchRule modulesUseOnlyWhatTheLayoutAllows = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("schemas").definedBy(MODULES.get("schemas"))
            .layer("embedded").definedBy(MODULES.get("embedded"))
            .layer("dispatcher").definedBy(MODULES.get("dispatcher"))
            .layer("worker").definedBy(MODULES.get("worker"))
            .layer("streams-app").definedBy(MODULES.get("streams-app"))
            .layer("morsel-engine").definedBy(MODULES.get("morsel-engine"))
            .layer("testkit").definedBy(MODULES.get("testkit"))
            .layer("bench").definedBy(MODULES.get("bench"))
            .layer("cli").definedBy(MODULES.get("cli"))
            .whereLayer("schemas").mayNotAccessAnyLayer()
            .whereLayer("embedded").mayNotAccessAnyLayer()
            // dispatcher and worker never import streams-app, nor each other: each talks to Baton through topics only
            .whereLayer("dispatcher").mayOnlyAccessLayers("schemas")
            .whereLayer("worker").mayOnlyAccessLayers("schemas")
            .whereLayer("streams-app").mayOnlyAccessLayers("schemas")
            // the engine node is a Baton worker and dispatches its own steps
            .whereLayer("morsel-engine").mayOnlyAccessLayers("schemas", "dispatcher", "worker")
            .whereLayer("testkit").mayOnlyAccessLayers("schemas", "embedded", "dispatcher", "worker", "streams-app", "morsel-engine")
            .whereLayer("bench").mayOnlyAccessLayers("schemas", "dispatcher", "worker", "streams-app", "morsel-engine", "testkit")
            .whereLayer("embedded").mayOnlyBeAccessedByLayers("testkit", "cli")
            .whereLayer("testkit").mayOnlyBeAccessedByLayers("bench", "cli")
            .whereLayer("bench").mayOnlyBeAccessedByLayers("cli")
            .whereLayer("cli").mayNotBeAccessedByAnyLayer();

    /**
     * A package and its {@code internals} are one slice: the public API builds on its internals and
     * they implement its types (as Kafka Streams' {@code processor} and {@code processor.internals}).
     */
    private static final SliceAssignment PACKAGES_WITH_THEIR_INTERNALS = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
            String pkg = c.getPackageName();
            return pkg.startsWith("dev.baton.") ? SliceIdentifier.of(pkg.replaceFirst("\\.internals(\\..*)?$", "")) : SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
            return "the packages of dev.baton, each with its internals";
        }
    };

    /**
     * No cycle between the packages of dev.baton, as the class files show them. Constants are the gap:
     * javac copies a {@code static final String} into its user, so a package that uses only another's
     * constants has no edge back in the bytecode; {@link SourcePackageCyclesTest} reads the imports instead.
     */
    @ArchTest
    static final ArchRule noPackageCycles = slices().assignedFrom(PACKAGES_WITH_THEIR_INTERNALS).should().beFreeOfCycles();

    @ArchTest
    static final ArchRule internalsStayInTheirModule = classes().should(useInternalsOfTheirOwnModuleOnly());

    @ArchTest
    static final ArchRule librariesCarryNoBenchmarkPeers = noClasses().that().resideOutsideOfPackage("dev.baton.bench..")
            .should().dependOnClassesThat().resideInAnyPackage("org.duckdb..", "io.trino.tpch..")
            .as("only the bench module uses DuckDB and the TPC-H generator");

    @ArchTest
    static final ArchRule librariesNeverStartABroker = noClasses().that(describe("are in a library module",
                    (JavaClass c) -> module(c).map(m -> List.of(LIBRARIES).contains(m)).orElse(false)))
            .should().dependOnClassesThat().resideInAnyPackage("kafka..", "dev.baton.embedded..", "org.apache.kafka.metadata..")
            .as("no library module (" + String.join(", ", LIBRARIES) + ") uses the broker");

    private static ArchCondition<JavaClass> useInternalsOfTheirOwnModuleOnly() {
        return new ArchCondition<>("use no other module's internals") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                for (Dependency d : origin.getDirectDependenciesFromSelf()) {
                    JavaClass target = d.getTargetClass().getBaseComponentType();
                    boolean internals = target.getPackageName().startsWith("dev.baton.")
                            && (target.getPackageName().endsWith(".internals") || target.getPackageName().contains(".internals."));
                    if (internals && !module(target).equals(module(origin))) {
                        events.add(SimpleConditionEvent.violated(d, d.getDescription() + ": " + target.getPackageName()
                                + " belongs to " + module(target).orElse("?") + ", not to " + module(origin).orElse("?")));
                    }
                }
            }
        };
    }

    private static Optional<String> module(JavaClass c) {
        String pkg = c.getPackageName() + ".";
        return MODULES.entrySet().stream()
                .filter(e -> Arrays.stream(e.getValue()).anyMatch(p -> pkg.startsWith(p.substring(0, p.length() - 1))))
                .map(Map.Entry::getKey).findFirst();
    }
}
