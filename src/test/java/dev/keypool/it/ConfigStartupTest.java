package dev.keypool.it;

import java.nio.file.Files;
import java.nio.file.Path;

import dev.keypool.camel.KeyPoolApplication;
import dev.keypool.config.ConfigException;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** A bad keypool.yaml stops the service before anything starts, naming every problem with its path. */
class ConfigStartupTest {

    @TempDir
    Path dir;

    @Test
    void should_refuse_to_start_and_report_every_problem() throws Exception {
        Path config = dir.resolve("keypool.yaml");
        Files.writeString(config, """
                channels:
                  - name: zhipu
                    baseUrl: http://127.0.0.1:1/v1
                    models: [glm-4]
                    fallback: [deepsek]
                    keys:
                      - key: sk-live-SECRET-1
                  - name: zhipu
                    baseUrl: http://127.0.0.1:1/v1
                    models: [glm-4]
                    keys:
                      - key: ${KEYPOOL_TEST_UNSET_VARIABLE}
                        weight: 0
                """);
        Main main = KeyPoolApplication.newMain();
        main.setPropertyPlaceholderLocations("file:application.properties");
        main.addOverrideProperty("keypool.config", config.toString());
        main.addOverrideProperty("camel.server.port", "0");

        Throwable failure = catchThrowable(main::start);
        // read before stop(), after which no context is started whatever happened before
        boolean started = main.getCamelContext() != null && main.getCamelContext().isStarted();
        main.stop();

        Throwable cause = failure;
        while (cause != null && !(cause instanceof ConfigException)) {
            cause = cause.getCause();
        }
        assertThat(cause).isInstanceOf(ConfigException.class);
        assertThat(cause.getMessage())
                .contains(config.toString())
                .contains("channels[0].fallback[0]: unknown channel 'deepsek'")
                .contains("channels[1].name: duplicate channel name 'zhipu'")
                .contains("channels[1].keys[0].key: environment variable KEYPOOL_TEST_UNSET_VARIABLE is not set")
                .contains("channels[1].keys[0].weight: must be >= 1")
                .doesNotContain("SECRET");
        assertThat(started).as("CamelContext started despite the invalid configuration").isFalse();
    }
}
