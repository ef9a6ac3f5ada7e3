package dev.dlock.cli;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.dlock.cli.common.PlantedCommon;
import dev.dlock.cli.exec.PlantedExec;
import org.junit.jupiter.api.Test;

/**
 * The layering of dlock-cli, as docs/design.md ("The CLI's packages") describes it, checked on the
 * compiled classes: the packages below dev.dlock.cli form no cycle; the commands (exec, inspect,
 * release, doctor, demo) are on top, wired only by the root package and never by one another;
 * {@code store} and {@code terminal} serve the commands and name none of them; {@code common}
 * names no other package of the CLI. A planted cycle shows that the rules do fail.
 */
class CliArchitectureTest {

    static final JavaClasses CLI = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("dev.dlock.cli");

    static final ArchRule NO_PACKAGE_CYCLES = slices().matching("dev.dlock.cli.(*)..").should().beFreeOfCycles();

    /** Each command family a package of its own. */
    static final String[] COMMANDS = {"dev.dlock.cli.exec..", "dev.dlock.cli.inspect..", "dev.dlock.cli.release..",
        "dev.dlock.cli.doctor..", "dev.dlock.cli.demo.."};

    static final ArchRule LAYERS = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("Root").definedBy("dev.dlock.cli")
            .layer("Exec").definedBy("dev.dlock.cli.exec..")
            .layer("Inspect").definedBy("dev.dlock.cli.inspect..")
            .layer("Release").definedBy("dev.dlock.cli.release..")
            .layer("Doctor").definedBy("dev.dlock.cli.doctor..")
            .layer("Demo").definedBy("dev.dlock.cli.demo..")
            .layer("Store").definedBy("dev.dlock.cli.store..")
            .layer("Terminal").definedBy("dev.dlock.cli.terminal..")
            .layer("Common").definedBy("dev.dlock.cli.common..")
            .whereLayer("Exec").mayOnlyBeAccessedByLayers("Root")
            .whereLayer("Inspect").mayOnlyBeAccessedByLayers("Root")
            .whereLayer("Release").mayOnlyBeAccessedByLayers("Root")
            .whereLayer("Doctor").mayOnlyBeAccessedByLayers("Root")
            .whereLayer("Demo").mayOnlyBeAccessedByLayers("Root")
            .whereLayer("Store").mayOnlyBeAccessedByLayers("Root", "Exec", "Inspect", "Release", "Doctor", "Demo")
            .whereLayer("Terminal").mayOnlyBeAccessedByLayers("Exec", "Inspect", "Release", "Doctor", "Demo")
            .whereLayer("Common").mayOnlyBeAccessedByLayers("Root", "Exec", "Inspect", "Release", "Doctor", "Demo",
                    "Store", "Terminal")
            .because("commands are on top, wired by the root; what they share sits below them and names none of them");

    @Test
    void packagesFormNoCycle() {
        NO_PACKAGE_CYCLES.check(CLI);
    }

    @Test
    void commandsAreOnTopAndTheSharedPackagesBelowThem() {
        LAYERS.check(CLI);
    }

    /** The check itself: a class of common and one of exec that name each other are a cycle and a breach. */
    @Test
    void aPlantedCycleIsFound() {
        JavaClasses planted = new ClassFileImporter().importClasses(PlantedCommon.class, PlantedExec.class);

        EvaluationResult cycles = NO_PACKAGE_CYCLES.evaluate(planted);
        EvaluationResult layers = LAYERS.evaluate(planted);

        assertThat(cycles.hasViolation()).isTrue();
        assertThat(cycles.getFailureReport().getDetails()).anySatisfy(detail ->
                assertThat(detail).contains("Cycle detected").contains("common").contains("exec"));
        assertThat(layers.hasViolation()).isTrue();
        assertThat(layers.getFailureReport().getDetails()).anySatisfy(detail ->
                assertThat(detail).contains(PlantedCommon.class.getName()).contains(PlantedExec.class.getName()));
    }
}
