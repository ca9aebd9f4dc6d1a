package dev.keypool.config;

import java.nio.file.Files;
import java.nio.file.Path;

import dev.keypool.testing.TestCertificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static dev.keypool.config.ConfigFixtures.channelWith;
import static dev.keypool.config.ConfigFixtures.problemsOf;
import static org.assertj.core.api.Assertions.assertThat;

/** channels[].http2 and caFile: read with their defaults, refused with their paths. */
class Http2AndCaFileValidationTest {

    @TempDir
    Path dir;

    @Test
    void should_offer_http2_and_trust_only_the_jvm_by_default() {
        ProviderConfig provider = ConfigFixtures.parse(channelWith("")).channels().get(0).provider();

        assertThat(provider.http2()).isEqualTo(ProviderConfig.Http2.AUTO);
        assertThat(provider.caFile()).isNull();
    }

    @Test
    void should_read_http2_off_and_a_ca_file() {
        TestCertificate certificate = TestCertificate.create(dir);

        ProviderConfig provider = ConfigFixtures.parse(channelWith("http2: off\ncaFile: " + certificate.pem() + "\n"))
                .channels().get(0).provider();

        assertThat(provider.http2()).isEqualTo(ProviderConfig.Http2.OFF);
        assertThat(provider.caFile()).isEqualTo(certificate.pem());
    }

    @Test
    void should_take_a_quoted_off_as_off_too() {
        assertThat(ConfigFixtures.parse(channelWith("http2: \"off\"\n")).channels().get(0).provider().http2())
                .isEqualTo(ProviderConfig.Http2.OFF);
    }

    @Test
    void should_report_an_unknown_http2_value() {
        assertThat(problemsOf(channelWith("http2: always\n")))
                .containsExactly("channels[0].http2: unknown http2 'always' (use auto, off)");
    }

    @Test
    void should_report_a_missing_ca_file() {
        Path missing = dir.resolve("missing.pem");

        assertThat(problemsOf(channelWith("caFile: " + missing + "\n"))).containsExactly(
                "channels[0].caFile: no readable file at '" + missing + "' (looked at " + missing.toAbsolutePath() + ")");
    }

    @Test
    void should_report_a_ca_file_without_a_certificate() throws Exception {
        Path notPem = Files.writeString(dir.resolve("not.pem"), "just some text\n");

        assertThat(problemsOf(channelWith("caFile: " + notPem + "\n")))
                .singleElement().asString().startsWith("channels[0].caFile: is not a PEM file of certificates");
    }
}
