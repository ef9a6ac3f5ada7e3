package dev.dlock;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The layering of dlock-core, as docs/design.md ("Code structure") describes it, checked on the
 * compiled classes: the packages form no cycle, the lock kinds sit above the engine, the acquire loop and what it uses never see a
 * backend, only the Redis and Lettuce packages (and the builder's one Lettuce option) touch
 * Lettuce, and the public API never shows an internal type. {@link SourceImportsTest} holds the
 * sources' imports, Javadoc-only ones too, to the same layering.
 */
class ArchitectureTest {

    static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("dev.dlock");

    /** Every package under dev.dlock.internal is a slice of its own (the engine's root one too). */
    private static final SliceAssignment INTERNAL_PACKAGES = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            return javaClass.getPackageName().startsWith("dev.dlock.internal")
                    ? SliceIdentifier.of(javaClass.getPackageName()) : SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
            return "the packages of dev.dlock.internal";
        }
    };

    static final ArchRule NO_PACKAGE_CYCLES = slices().assignedFrom(INTERNAL_PACKAGES).should().beFreeOfCycles();

    /** The lock kinds, the engine, the acquire loop, holds, observers, settings and the store SPI (ArchUnit's package syntax). */
    static final String[] THE_LOOP = {"dev.dlock.internal", "dev.dlock.internal.kinds..", "dev.dlock.internal.acquire..", "dev.dlock.internal.hold..",
        "dev.dlock.internal.observe..", "dev.dlock.internal.store..", "dev.dlock.internal.settings.."};

    /** The backends and Redis's client library, which the loop never sees. */
    static final String[] BACKENDS = {"dev.dlock.internal.redis..", "dev.dlock.internal.lettuce..",
        "dev.dlock.internal.memory..", "dev.dlock.internal.postgres..", "dev.dlock.internal.zookeeper..", "io.lettuce.."};

    static final ArchRule LOOP_NEVER_SEES_A_BACKEND = noClasses()
            .that().resideInAnyPackage(THE_LOOP)
            .should().dependOnClassesThat().resideInAnyPackage(BACKENDS)
            .because("the acquire loop, holds, observers and the store SPI speak to a LockStore, whichever backend it is");

    static final ArchRule ONLY_THE_API_NAMES_A_LOCK_KIND = noClasses()
            .that().resideInAPackage("dev.dlock.internal..").and().resideOutsideOfPackage("dev.dlock.internal.kinds..")
            .should().dependOnClassesThat().resideInAPackage("dev.dlock.internal.kinds..")
            .because("the lock kinds are built on the engine for the API; the engine and what it uses never name them");

    static final ArchRule ONLY_REDIS_PACKAGES_TOUCH_LETTUCE = noClasses()
            .that().resideOutsideOfPackages("dev.dlock.internal.redis..", "dev.dlock.internal.lettuce..")
            .and(notTheBuildersLettuceOption())
            .should().dependOnClassesThat().resideInAnyPackage("io.lettuce..")
            .because("Lettuce is the Redis backend's client library, nobody else's");

    static final ArchRule ONLY_THE_POSTGRES_PACKAGE_TOUCHES_THE_DRIVER = noClasses()
            .that().resideOutsideOfPackages("dev.dlock.internal.postgres..")
            .should().dependOnClassesThat().resideInAnyPackage("org.postgresql..")
            .because("the PostgreSQL driver is the PostgreSQL backend's, nobody else's");

    static final ArchRule ONLY_THE_ZOOKEEPER_PACKAGE_TOUCHES_ITS_CLIENT = noClasses()
            .that().resideOutsideOfPackages("dev.dlock.internal.zookeeper..")
            .should().dependOnClassesThat().resideInAnyPackage("org.apache.zookeeper..")
            .because("the ZooKeeper client is the ZooKeeper backend's, nobody else's");

    static final ArchRule API_SHOWS_NO_INTERNAL_TYPE = ArchRuleDefinition.classes()
            .that().resideInAPackage("dev.dlock").and().arePublic()
            .should(showNoInternalType())
            .because("the API is dev.dlock alone: an application never names an internal type");

    @Test
    void packagesFormNoCycle() {
        NO_PACKAGE_CYCLES.check(CORE);
    }

    @Test
    void theLoopNeverSeesABackend() {
        LOOP_NEVER_SEES_A_BACKEND.check(CORE);
    }

    @Test
    void onlyTheApiNamesALockKind() {
        ONLY_THE_API_NAMES_A_LOCK_KIND.check(CORE);
    }

    @Test
    void onlyTheZooKeeperPackageTouchesItsClient() {
        ONLY_THE_ZOOKEEPER_PACKAGE_TOUCHES_ITS_CLIENT.check(CORE);
    }

    @Test
    void onlyTheRedisPackagesTouchLettuce() {
        ONLY_REDIS_PACKAGES_TOUCH_LETTUCE.check(CORE);
    }

    @Test
    void onlyThePostgresPackageTouchesTheDriver() {
        ONLY_THE_POSTGRES_PACKAGE_TOUCHES_THE_DRIVER.check(CORE);
    }

    @Test
    void thePublicApiShowsNoInternalType() {
        API_SHOWS_NO_INTERNAL_TYPE.check(CORE);
    }

    /**
     * {@link RedisStore#clientResources}: the application shares its Lettuce resources. Only RedisStore may
     * name a Lettuce type outside the Redis packages, so that Lettuce is loaded only by a Redis client.
     */
    private static DescribedPredicate<JavaClass> notTheBuildersLettuceOption() {
        return DescribedPredicate.describe("are not RedisStore (whose clientResources option takes Lettuce's)",
                javaClass -> !javaClass.isEquivalentTo(RedisStore.class));
    }

    private static ArchCondition<JavaClass> showNoInternalType() {
        return new ArchCondition<>("show no internal type in a public or protected signature") {
            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                List<String> shown = new ArrayList<>();
                javaClass.getRawSuperclass().filter(ArchitectureTest::isInternal)
                        .ifPresent(type -> shown.add("extends " + type.getName()));
                javaClass.getRawInterfaces().stream().filter(ArchitectureTest::isInternal)
                        .forEach(type -> shown.add("implements " + type.getName()));
                for (JavaCodeUnit unit : javaClass.getCodeUnits()) {
                    if (isVisible(unit.getModifiers())) {
                        if (isInternal(unit.getRawReturnType())) {
                            shown.add(unit.getFullName() + " returns " + unit.getRawReturnType().getName());
                        }
                        unit.getRawParameterTypes().stream().filter(ArchitectureTest::isInternal)
                                .forEach(type -> shown.add(unit.getFullName() + " takes " + type.getName()));
                    }
                }
                for (JavaField field : javaClass.getFields()) {
                    if (isVisible(field.getModifiers()) && isInternal(field.getRawType())) {
                        shown.add(field.getFullName() + " is a " + field.getRawType().getName());
                    }
                }
                shown.forEach(what -> events.add(SimpleConditionEvent.violated(javaClass, what)));
            }
        };
    }

    private static boolean isVisible(java.util.Set<JavaModifier> modifiers) {
        return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
    }

    private static boolean isInternal(JavaClass type) {
        return type.getPackageName().startsWith("dev.dlock.internal");
    }
}
