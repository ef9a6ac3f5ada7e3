package dev.dlock.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** libpq's URL forms as the JDBC driver takes them, or refused naming the form that works. */
class PgUrlsTest {

    @Test
    void userAndPasswordBeforeTheHostBecomeParameters() {
        assertThat(PgUrls.toJdbc("postgresql://app:secret@db:5432/app"))
                .isEqualTo("jdbc:postgresql://db:5432/app?user=app&password=secret");
        assertThat(PgUrls.toJdbc("postgres://app@db/app?sslmode=require"))
                .isEqualTo("jdbc:postgresql://db/app?user=app&sslmode=require");
        assertThat(PgUrls.toJdbc("jdbc:postgresql://app:secret@db:5432/app?prepareThreshold=0"))
                .isEqualTo("jdbc:postgresql://db:5432/app?user=app&password=secret&prepareThreshold=0");
    }

    @Test
    void percentEncodingIsDecodedOnceAndEncodedForTheDriver() {
        assertThat(PgUrls.toJdbc("postgresql://app:p%40ss%3Aw%2Frd%25+x@db/my%20db"))
                .isEqualTo("jdbc:postgresql://db/my%20db?user=app&password=p%40ss%3Aw%2Frd%25%2Bx");
    }

    @Test
    void severalHostsWithTargetSessionAttrsPickThePrimary() {
        assertThat(PgUrls.toJdbc("postgresql://app:pw@db1:5432,db2:5433/app?target_session_attrs=read-write"))
                .isEqualTo("jdbc:postgresql://db1:5432,db2:5433/app?user=app&password=pw&targetServerType=primary");
        assertThat(PgUrls.toJdbc("postgresql:///app?host=db1,db2&port=5432,5433&application_name=billing"))
                .isEqualTo("jdbc:postgresql://db1:5432,db2:5433/app?ApplicationName=billing");
        assertThat(PgUrls.toJdbc("postgresql://[::1]:5432/app")).isEqualTo("jdbc:postgresql://[::1]:5432/app");
    }

    @Test
    void aJdbcUrlWithoutUserInfoIsLeftAsItIs() {
        String url = "jdbc:postgresql://db:5432/app?user=app&password=a+b&currentSchema=x";
        assertThat(PgUrls.toJdbc(url)).isSameAs(url);
    }

    @Test
    void formsTheDriverCannotTakeAreRefusedNamingTheOneThatWorks() {
        assertThatThrownBy(() -> PgUrls.toJdbc("postgresql:///app?host=/var/run/postgresql"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unix socket")
                .hasMessageContaining("postgresql://user:password@127.0.0.1:5432/database");
        assertThatThrownBy(() -> PgUrls.toJdbc("postgresql://app:secret@/app"))
                .hasMessageContaining("Unix socket").hasMessageNotContaining("secret");
        assertThatThrownBy(() -> PgUrls.toJdbc("postgresql://db/app?service=billing"))
                .hasMessageContaining("service= in 'postgresql://db/app' is libpq's alone");
        assertThatThrownBy(() -> PgUrls.toJdbc("postgresql://db/app?target_session_attrs=writable"))
                .hasMessageContaining("target_session_attrs=writable");
    }

    @Test
    void messagesShowNoCredentials() {
        assertThat(PgUrls.withoutCredentials("postgresql://app:p@ss@db:5432/app?x=1")).isEqualTo("postgresql://db:5432/app");
        assertThat(PgUrls.withoutCredentials("jdbc:postgresql://db:5432/app?user=a&password=b")).isEqualTo("postgresql://db:5432/app");
    }
}
