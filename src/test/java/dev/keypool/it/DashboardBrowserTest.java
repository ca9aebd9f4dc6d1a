package dev.keypool.it;

import java.io.File;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.logging.Level;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.pool.Fingerprint;
import dev.keypool.testing.RequestLogRows;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.Select;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard at /admin/ in a real browser: Debian's headless Chromium driven by Selenium (./test.sh installs
 * chromium and chromium-driver). It loads without a console error, refuses a wrong token, and shows a breaker forced
 * OPEN and a key disabled over the admin API within 5 seconds. Its buttons act, each after a confirmation: a key
 * disabled by a click gets no more requests, a tenant created by a click has a token that works. It charts the request
 * log's usage; its screenshot with some traffic in it is target/dashboard.png.
 */
@Tag("slow")
class DashboardBrowserTest extends GatewayTestSupport {

    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    private static final String ONE = Fingerprint.of("sk-alpha-1");

    private ChromeDriver browser;

    @Override
    protected String keypoolYaml() {
        return """
                channels:
                  - name: alpha
                    baseUrl: UPSTREAM
                    models: [gpt-test]
                    pricing:
                      gpt-test: {input: 2.0, output: 4.0}
                    keys:
                      - key: sk-alpha-1
                        label: team-pro
                        rpm: 100
                      - key: sk-alpha-2
                        weight: 3
                    fallback: [beta]
                    disableAfter: 2
                    breaker: {consecutiveFailThreshold: 2}
                  - name: beta
                    baseUrl: UPSTREAM
                    models: [gpt-beta]
                    keys:
                      - key: sk-beta-1
                admin:
                  token: admin-secret-token
                """;
    }

    @Override
    protected Properties overrideProperties() {
        Properties p = super.overrideProperties();
        // keys added by a click are stored encrypted under it
        p.put("KEYPOOL_MASTER_KEY", ProviderKeyAddTest.masterKey());
        return p;
    }

    @BeforeEach
    void openBrowser() {
        assertThat(new File(CHROMIUM)).as("chromium (apt-get install -y chromium chromium-driver)").exists();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        // explicit driver and binary: Selenium Manager never runs (no download)
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        browser.manage().window().setSize(new Dimension(1400, 900));
    }

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void should_show_a_forced_open_channel_and_a_disabled_key_live() throws Exception {
        chat("gpt-test");
        chat("gpt-test");
        browser.get(url("/admin/"));
        assertThat(browser.getTitle()).isEqualTo("KeyPool dashboard");
        assertThat(consoleErrors()).as("console errors after loading").isEmpty();

        signIn(AdminCalls.TOKEN);
        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("breaker-alpha")).equals("CLOSED"));
        assertThat(text(By.id("key-state-alpha-" + ONE))).isEqualTo("ACTIVE");
        assertThat(text(By.id("channel-alpha"))).contains("team-pro").contains("chain: alpha → beta").contains("rpm 1/100");

        AdminCalls admin = new AdminCalls(http, url(""));
        assertThat(admin.post("/admin/channels/alpha/breaker", "{\"state\":\"OPEN\",\"reason\":\"injected fault\"}").statusCode())
                .isEqualTo(200);
        assertThat(admin.post("/admin/keys/" + ONE + "/disable").statusCode()).isEqualTo(200);

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(text(By.id("breaker-alpha"))).isEqualTo("OPEN");
            assertThat(text(By.id("key-state-alpha-" + ONE))).isEqualTo("DISABLED");
            assertThat(text(By.id("events"))).contains("Channel [alpha] forced OPEN by operator: injected fault")
                    .contains("Key " + ONE + "(alpha) disabled by operator");
        });
        assertThat(consoleErrors()).as("console errors while live").isEmpty();
    }

    @Test
    void should_send_the_next_requests_to_the_other_key_once_a_click_disables_one() throws Exception {
        browser.get(url("/admin/"));
        signIn(AdminCalls.TOKEN);
        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("key-state-alpha-" + ONE)).equals("ACTIVE"));

        click(By.id("act-disable-alpha-" + ONE));
        // asked first: nothing has changed until the operator confirms
        await().atMost(Duration.ofSeconds(5)).until(() -> browser.findElement(By.id("dialog")).isDisplayed());
        assertThat(text(By.id("dialog-title"))).contains("Disable key " + ONE);
        assertThat(channel("alpha").pool().stateOf(key("sk-alpha-1")).name()).isEqualTo("ACTIVE");
        click(By.id("dialog-confirm"));

        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("key-state-alpha-" + ONE)).equals("DISABLED"));
        for (int i = 0; i < 6; i++) {
            assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
        }
        assertThat(upstream.hits("sk-alpha-1")).isZero();
        assertThat(upstream.hits("sk-alpha-2")).isEqualTo(6);
        assertThat(consoleErrors()).as("console errors").isEmpty();
    }

    @Test
    void should_show_a_created_tenants_token_once_and_the_token_works() throws Exception {
        browser.get(url("/admin/"));
        signIn(AdminCalls.TOKEN);
        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("tenants")).contains("no tenants"));

        click(By.id("tenant-create"));
        browser.findElement(By.id("field-name")).sendKeys("team-c");
        browser.findElement(By.id("field-rpm")).sendKeys("60");
        click(By.id("dialog-confirm"));

        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("new-token-text")).startsWith("kp-"));
        String token = text(By.id("new-token-text"));
        assertThat(chatAs(token, "gpt-test").statusCode()).isEqualTo(200);
        assertThat(chatAs("kp-not-a-token", "gpt-test").statusCode()).isEqualTo(401);
        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("tenant-team-c")).contains("rpm 60"));

        click(By.id("new-token-done"));
        assertThat(browser.getPageSource()).doesNotContain(token);
        assertThat(consoleErrors()).as("console errors").isEmpty();
    }

    @Test
    void should_force_a_breaker_and_change_a_weight_by_clicks_and_do_nothing_when_cancelled() throws Exception {
        browser.get(url("/admin/"));
        signIn(AdminCalls.TOKEN);
        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("breaker-alpha")).equals("CLOSED"));

        click(By.id("act-drain-alpha-" + ONE));
        click(By.id("dialog-cancel"));
        click(By.id("act-open-alpha"));
        click(By.id("dialog-confirm"));
        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("breaker-alpha")).equals("OPEN"));
        click(By.id("act-weight-alpha-" + ONE));
        browser.findElement(By.id("field-weight")).clear();
        browser.findElement(By.id("field-weight")).sendKeys("5");
        click(By.id("dialog-confirm"));

        await().atMost(Duration.ofSeconds(5)).until(() -> key("sk-alpha-1").weight() == 5);
        assertThat(channel("alpha").breaker().forcedOpen()).isTrue();
        assertThat(key("sk-alpha-1").draining()).as("drain cancelled").isFalse();
        // alpha forced open: its requests go down the chain to beta
        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
        assertThat(upstream.hits("sk-beta-1")).isEqualTo(1);
        assertThat(consoleErrors()).as("console errors").isEmpty();
    }

    @Test
    void should_rotate_and_delete_a_tenant_by_clicks() throws Exception {
        AdminCalls admin = new AdminCalls(http, url(""));
        HttpResponse<String> created = admin.post("/admin/tenants", "{\"name\":\"team-d\"}");
        assertThat(created.statusCode()).isEqualTo(201);
        String first = new ObjectMapper().readTree(created.body()).path("token").asText();
        browser.get(url("/admin/"));
        signIn(AdminCalls.TOKEN);
        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("tenant-team-d")).contains("team-d"));

        click(By.id("tenant-rotate-team-d"));
        click(By.id("dialog-confirm"));
        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("new-token-text")).startsWith("kp-"));
        String second = text(By.id("new-token-text"));
        assertThat(second).isNotEqualTo(first);
        assertThat(chatAs(second, "gpt-test").statusCode()).isEqualTo(200);
        assertThat(chatAs(first, "gpt-test").statusCode()).isEqualTo(401);

        click(By.id("new-token-done"));
        click(By.id("tenant-delete-team-d"));
        click(By.id("dialog-confirm"));
        await().atMost(Duration.ofSeconds(5)).until(() -> browser.findElements(By.id("tenant-team-d")).isEmpty());
        assertThat(chatAs(second, "gpt-test").statusCode()).isEqualTo(401);
        assertThat(consoleErrors()).as("console errors").isEmpty();
    }

    @Test
    void should_add_a_key_by_a_click_and_show_only_its_fingerprint() throws Exception {
        String raw = "sk-typed-into-the-dashboard-41c2";
        browser.get(url("/admin/"));
        signIn(AdminCalls.TOKEN);

        click(By.id("act-add-key-alpha"));
        assertThat(browser.findElement(By.id("field-key")).getAttribute("type")).isEqualTo("password");
        browser.findElement(By.id("field-key")).sendKeys(raw);
        browser.findElement(By.id("field-label")).sendKeys("added by a click");
        click(By.id("dialog-confirm"));

        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("channel-alpha")).contains(Fingerprint.of(raw)));
        assertThat(text(By.id("notice"))).isEqualTo("Key " + Fingerprint.of(raw) + " added to alpha");
        assertThat(channel("alpha").pool().keys()).extracting(dev.keypool.pool.ApiKey::fingerprint).contains(Fingerprint.of(raw));
        assertThat(browser.getPageSource()).doesNotContain(raw);
        // only the actions the API takes: a key added at runtime is removed, not weighted; one of keypool.yaml the other way
        String added = Fingerprint.of(raw);
        assertThat(browser.findElements(By.id("act-remove-alpha-" + added))).hasSize(1);
        assertThat(browser.findElements(By.id("act-weight-alpha-" + added))).isEmpty();
        assertThat(browser.findElements(By.id("act-weight-alpha-" + ONE))).hasSize(1);
        assertThat(browser.findElements(By.id("act-remove-alpha-" + ONE))).isEmpty();
        assertThat(consoleErrors()).as("console errors").isEmpty();
    }

    @Test
    void should_chart_requests_per_channel_and_per_key_from_the_request_log() throws Exception {
        // six hours of traffic, more each hour, on alpha's two keys and on beta
        Instant start = Instant.parse("2026-01-01T00:10:00Z");
        int requests = 0;
        for (int hour = 0; hour < 6; hour++) {
            clock.set(start.plus(Duration.ofHours(hour)));
            for (int i = 0; i <= hour; i++) {
                chat("gpt-test");
                chat(i % 2 == 0 ? "gpt-beta" : "gpt-test");
                requests += 2;
            }
        }
        clock.set(start.plus(Duration.ofHours(6)));
        RequestLogRows.sqlite(context.getPropertiesComponent().resolveProperty("state.dir").orElseThrow()).await(requests);
        browser.manage().window().setSize(new Dimension(1400, 1250));
        browser.get(url("/admin/"));
        signIn(AdminCalls.TOKEN);

        // per channel over the last 24 hours, the page's first view: 30 requests on alpha, 12 on beta
        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("usage-totals")).contains("alpha 30"));
        assertThat(text(By.id("usage-totals"))).contains("beta 12");
        assertThat(browser.findElements(By.cssSelector("#usage-chart canvas"))).hasSize(1);
        assertThat(text(By.id("usage-chart"))).contains("alpha").contains("beta");
        Path shot = browser.getScreenshotAs(OutputType.FILE).toPath();
        Files.copy(shot, Path.of("target", "dashboard.png"), StandardCopyOption.REPLACE_EXISTING);

        // the last hour on the gateway's clock: the buckets from 05:00, the sixth hour's 9 and 3
        new Select(browser.findElement(By.id("usage-range"))).selectByValue("hour");
        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("usage-totals")).contains("alpha 9"));
        assertThat(text(By.id("usage-totals"))).contains("beta 3");
        new Select(browser.findElement(By.id("usage-range"))).selectByValue("month");
        new Select(browser.findElement(By.id("usage-group"))).selectByValue("key");
        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("usage-totals")).contains(ONE));
        assertThat(text(By.id("usage-totals"))).contains(Fingerprint.of("sk-alpha-2")).contains(Fingerprint.of("sk-beta-1"));
        assertThat(text(By.id("usage-caption"))).contains("per key, last 30 days");
        assertThat(consoleErrors()).as("console errors").isEmpty();
    }

    @Test
    void should_show_what_an_injected_fault_does_to_the_channel_and_its_keys() throws Exception {
        browser.get(url("/admin/"));
        signIn(AdminCalls.TOKEN);
        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("breaker-alpha")).equals("CLOSED"));
        AdminCalls admin = new AdminCalls(http, url(""));

        assertThat(admin.post("/admin/faults",
                "{\"channel\":\"alpha\",\"kind\":\"status\",\"status\":503,\"rate\":1,\"duration\":\"60s\"}").statusCode())
                .isEqualTo(201);
        // two requests: each key of alpha fails twice in a row (disabled), the breaker trips, beta serves
        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);
        assertThat(chat("gpt-test").statusCode()).isEqualTo(200);

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(text(By.id("breaker-alpha"))).isEqualTo("OPEN");
            assertThat(text(By.id("key-state-alpha-" + ONE))).isEqualTo("DISABLED");
            assertThat(text(By.id("events"))).contains("Key " + ONE + "(alpha) disabled after 2 consecutive failures");
        });
        assertThat(upstream.hits("sk-alpha-1") + upstream.hits("sk-alpha-2")).isZero();
        assertThat(consoleErrors()).as("console errors while live").isEmpty();
    }

    @Test
    void should_refuse_a_wrong_token() {
        browser.get(url("/admin/"));

        signIn("not-the-token");

        await().atMost(Duration.ofSeconds(5)).until(() -> text(By.id("login-error")).equals("Wrong admin token."));
        assertThat(browser.findElement(By.id("app")).isDisplayed()).isFalse();
        assertThat(browser.executeScript("return sessionStorage.getItem('keypoolAdminToken')")).isNull();
        // the browser reports the refused request itself; nothing else may show up
        assertThat(consoleErrors()).allSatisfy(line -> assertThat(line).contains("/admin/status").contains("401"));
    }

    private dev.keypool.pool.ApiKey key(String raw) {
        return channel("alpha").pool().keys().stream().filter(k -> k.fingerprint().equals(Fingerprint.of(raw))).findFirst().orElseThrow();
    }

    /** A click on an element the page may redraw meanwhile: looked up again if it was replaced. */
    private void click(By by) {
        // stale, not there yet, not clickable yet: all WebDriverExceptions
        await().atMost(Duration.ofSeconds(5)).ignoreExceptionsInstanceOf(org.openqa.selenium.WebDriverException.class)
                .until(() -> {
                    browser.findElement(by).click();
                    return true;
                });
    }

    private void signIn(String token) {
        browser.findElement(By.id("token")).sendKeys(token);
        browser.findElement(By.id("sign-in")).click();
    }

    /**
     * The element's text now; the page redraws its tables every second, so an element found may be replaced before
     * it is read: then it is looked up again.
     */
    private String text(By by) {
        for (int attempt = 0; ; attempt++) {
            try {
                List<org.openqa.selenium.WebElement> found = browser.findElements(by);
                return found.isEmpty() ? "" : found.get(0).getText();
            } catch (org.openqa.selenium.StaleElementReferenceException redrawn) {
                if (attempt == 10) {
                    throw redrawn;
                }
            }
        }
    }

    private List<String> consoleErrors() {
        return browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogEntry::getMessage).toList();
    }
}
