package dev.keypool.it;

import java.time.Duration;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetup;
import dev.keypool.testing.FreePorts;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A channel's breaker opening reaches ops by mail: a real SMTP server (GreenMail) on loopback gets it. */
class AlertMailTest extends GatewayTestSupport {

    private final GreenMail smtp = start(new GreenMail(new ServerSetup(FreePorts.next(), "127.0.0.1", ServerSetup.PROTOCOL_SMTP)));

    private static GreenMail start(GreenMail server) {
        server.start();
        return server;
    }

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    keys:
                      - key: sk-alpha-1
                admin:
                  token: admin-secret-token
                alerts:
                  sinks: ["smtp://127.0.0.1:PORT?to=ops@example.com&from=keypool@example.com"]
                """.replace("PORT", String.valueOf(smtp.getSmtp().getPort()));
    }

    @AfterEach
    void stopSmtp() {
        smtp.stop();
    }

    @Test
    void should_mail_ops_when_a_breaker_opens() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));

        assertThat(admin.post("/admin/channels/alpha/breaker", "{\"state\":\"OPEN\",\"reason\":\"provider maintenance\"}")
                .statusCode()).isEqualTo(200);

        await().atMost(Duration.ofSeconds(10)).until(() -> smtp.getReceivedMessages().length == 1);
        MimeMessage mail = smtp.getReceivedMessages()[0];
        assertThat(mail.getAllRecipients()).extracting(Object::toString).containsExactly("ops@example.com");
        assertThat(mail.getFrom()).extracting(Object::toString).containsExactly("keypool@example.com");
        assertThat(mail.getSubject()).isEqualTo("KeyPool alert breakerOpened: alpha");
        assertThat(GreenMailUtil.getBody(mail)).startsWith("Channel [alpha] forced OPEN by operator: provider maintenance")
                .contains("rule: breakerOpened").doesNotContain("sk-alpha");
    }
}
