package dev.dlock.examples.bom;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A fresh Spring Boot application, built by Maven as a user builds it, that imports
 * {@code dlock-bom} (before Spring Boot's own BOM, the order in which a BOM can do harm) and
 * depends on the starter: its dependencies resolve to exactly the versions of the same
 * application without {@code dlock-bom} (Spring Boot's Netty, JUnit, Jackson and Lettuce), and
 * its own {@code @SpringBootTest} takes a lock through the starter on Spring Boot's Lettuce.
 *
 * <p>dlock's artifacts of this build are laid out in a private local repository under
 * {@code target/}, chained to the build's own local repository for everything else, so nothing
 * is installed into the user's repository.
 */
class BomImportIT {
    private static final String VERSION = System.getProperty("dlock.version");
    private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
    private static final Path WORK = Path.of("target/bom-import").toAbsolutePath();
    private static final Pattern LISTED = Pattern.compile("^\\s+([\\w.-]+):([\\w.-]+):([\\w.-]+)(?::[\\w.-]+)?:([\\w.-]+):(\\w+)");

    @Test
    void importingTheBomMovesNoVersionOfSpringBootsAndTheStarterLocksOnBootsLettuce() throws Exception {
        assertThat(VERSION).as("dlock.version, set by failsafe (mvn verify) after the modules were packaged").isNotNull();
        Path repository = WORK.resolve("repository");
        deleteTree(repository.resolve("dev/dlock"));
        deleteTree(WORK.resolve("project"));
        install(repository, "dlock-parent", ROOT.resolve("pom.xml"), null);
        install(repository, "dlock-bom", ROOT.resolve("dlock-bom/pom.xml"), null);
        for (String module : List.of("dlock-core", "dlock-spring-boot-starter")) {
            install(repository, module, ROOT.resolve(module).resolve("pom.xml"),
                    ROOT.resolve(module).resolve("target").resolve(module + "-" + VERSION + ".jar"));
        }
        Path project = writeProject(WORK.resolve("project"));

        Path log = WORK.resolve("maven.log");
        try (RedisServer redis = RedisServer.start()) {
            ProcessBuilder maven = new ProcessBuilder(ROOT.resolve("mvnw").toString(), "-B",
                    "-Dmaven.repo.local=" + repository,
                    "-Dmaven.repo.local.tail=" + System.getProperty("outer.repository"),
                    "-Dmaven.repo.local.tail.ignoreAvailability=true",
                    "test", "dependency:list", "-DoutputFile=target/dependencies.txt", "-Dsort=true")
                    .directory(project.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
            maven.environment().put("JAVA_HOME", System.getProperty("java.home"));
            maven.environment().put("SPRING_DATA_REDIS_HOST", redis.host());
            maven.environment().put("SPRING_DATA_REDIS_PORT", String.valueOf(redis.port()));
            Process build = maven.start();
            assertThat(build.waitFor(5, TimeUnit.MINUTES)).as("the application's build ended").isTrue();
            assertThat(build.exitValue()).as("the application's build and tests passed; its log:\n%s", tail(log))
                    .isZero();
        }

        Map<String, String> withBom = resolved(project.resolve("app/target/dependencies.txt"));
        Map<String, String> withoutBom = resolved(project.resolve("baseline/target/dependencies.txt"));
        assertThat(withBom).as("versions with dlock-bom imported").isEqualTo(withoutBom);
        assertThat(withBom).containsKeys("io.netty:netty-common", "org.junit.jupiter:junit-jupiter-api",
                "org.junit.platform:junit-platform-engine", "com.fasterxml.jackson.core:jackson-databind",
                "io.lettuce:lettuce-core", "dev.dlock:dlock-core");
        assertThat(Files.readString(project.resolve("app/target/lettuce-version.txt")))
                .as("the Lettuce the application's test ran on: Spring Boot's")
                .startsWith(withoutBom.get("io.lettuce:lettuce-core"));
    }

    /** group:artifact to version of every resolved dependency but dlock's own modules. */
    private static Map<String, String> resolved(Path listing) throws IOException {
        Map<String, String> versions = new TreeMap<>();
        for (String line : Files.readAllLines(listing)) {
            Matcher m = LISTED.matcher(line);
            if (m.find()) {
                versions.put(m.group(1) + ":" + m.group(2), m.group(4));
            }
        }
        assertThat(versions).as("dependencies listed in " + listing).isNotEmpty();
        return versions;
    }

    /** Lays out one artifact as Maven's install would: the POM, and the jar when there is one. */
    private static void install(Path repository, String artifactId, Path pom, Path jar) throws IOException {
        Path dir = repository.resolve("dev/dlock").resolve(artifactId).resolve(VERSION);
        Files.createDirectories(dir);
        Files.copy(pom, dir.resolve(artifactId + "-" + VERSION + ".pom"), StandardCopyOption.REPLACE_EXISTING);
        if (jar != null) {
            assertThat(jar).as("built by the reactor before this test (mvn verify)").exists();
            Files.copy(jar, dir.resolve(artifactId + "-" + VERSION + ".jar"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static Path writeProject(Path project) throws IOException {
        write(project.resolve(".mvn/maven.config"), "");
        write(project.resolve("pom.xml"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>com.example</groupId>
                  <artifactId>bom-import</artifactId>
                  <version>1</version>
                  <packaging>pom</packaging>
                  <modules><module>app</module><module>baseline</module></modules>
                </project>
                """);
        write(project.resolve("app/pom.xml"), application("app", """
                      <dependency>
                        <groupId>dev.dlock</groupId>
                        <artifactId>dlock-bom</artifactId>
                        <version>%s</version>
                        <type>pom</type>
                        <scope>import</scope>
                      </dependency>
                """.formatted(VERSION), ""));
        write(project.resolve("baseline/pom.xml"), application("baseline", "", "<version>" + VERSION + "</version>"));
        write(project.resolve("app/src/main/java/com/example/Reports.java"), """
                package com.example;

                import dev.dlock.LockClient;
                import dev.dlock.spring.WithLock;
                import org.springframework.boot.autoconfigure.SpringBootApplication;
                import org.springframework.stereotype.Service;

                @SpringBootApplication
                public class Reports {
                    @Service
                    public static class Nightly {
                        private final LockClient locks;

                        public Nightly(LockClient locks) {
                            this.locks = locks;
                        }

                        @WithLock(key = "'report:' + #day", waitTime = "5s")
                        public boolean run(String day) {
                            return locks.getLock("report:" + day).isHeldByCurrentThread();
                        }
                    }
                }
                """);
        write(project.resolve("app/src/test/java/com/example/ReportsTest.java"), """
                package com.example;

                import static org.junit.jupiter.api.Assertions.assertTrue;

                import io.lettuce.core.LettuceVersion;
                import java.nio.file.Files;
                import java.nio.file.Path;
                import org.junit.jupiter.api.Test;
                import org.springframework.beans.factory.annotation.Autowired;
                import org.springframework.boot.test.context.SpringBootTest;

                @SpringBootTest(properties = "spring.main.banner-mode=off")
                class ReportsTest {
                    @Autowired
                    Reports.Nightly nightly;

                    @Test
                    void runsUnderTheLock() throws Exception {
                        assertTrue(nightly.run("2026-11-26"));
                        Files.writeString(Path.of("target/lettuce-version.txt"), LettuceVersion.getVersion());
                    }
                }
                """);
        return project;
    }

    /** A Spring Boot application's POM: Spring Boot's BOM after {@code bomFirst}, the starter, JUnit. */
    private static String application(String artifactId, String bomFirst, String starterVersion) {
        return """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>com.example</groupId>
                  <artifactId>%s</artifactId>
                  <version>1</version>
                  <properties>
                    <maven.compiler.release>17</maven.compiler.release>
                    <maven.compiler.parameters>true</maven.compiler.parameters>
                    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
                  </properties>
                  <dependencyManagement>
                    <dependencies>
                %s      <dependency>
                        <groupId>org.springframework.boot</groupId>
                        <artifactId>spring-boot-dependencies</artifactId>
                        <version>%s</version>
                        <type>pom</type>
                        <scope>import</scope>
                      </dependency>
                    </dependencies>
                  </dependencyManagement>
                  <dependencies>
                    <dependency>
                      <groupId>dev.dlock</groupId>
                      <artifactId>dlock-spring-boot-starter</artifactId>
                      %s
                    </dependency>
                    <dependency>
                      <groupId>io.lettuce</groupId>
                      <artifactId>lettuce-core</artifactId>
                    </dependency>
                    <dependency>
                      <groupId>com.fasterxml.jackson.core</groupId>
                      <artifactId>jackson-databind</artifactId>
                    </dependency>
                    <dependency>
                      <groupId>org.springframework.boot</groupId>
                      <artifactId>spring-boot-starter-test</artifactId>
                      <scope>test</scope>
                    </dependency>
                  </dependencies>
                  <build>
                    <plugins>
                      <plugin>
                        <artifactId>maven-compiler-plugin</artifactId>
                        <version>3.14.0</version>
                      </plugin>
                      <plugin>
                        <artifactId>maven-surefire-plugin</artifactId>
                        <version>3.6.1</version>
                      </plugin>
                      <plugin>
                        <artifactId>maven-dependency-plugin</artifactId>
                        <version>3.9.0</version>
                      </plugin>
                    </plugins>
                  </build>
                </project>
                """.formatted(artifactId, bomFirst, System.getProperty("spring-boot.version"), starterVersion);
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
