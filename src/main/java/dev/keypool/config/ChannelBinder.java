package dev.keypool.config;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import dev.keypool.auth.ProviderAuth;
import dev.keypool.pool.RoundRobinStrategy;
import dev.keypool.pool.SelectionStrategy;
import dev.keypool.quota.ModelPrice;

/** One entry of {@code channels}. Its fallback names are handed back unchecked: not every channel is known yet. */
final class ChannelBinder {

    /**
     * The channel as read, with its fallback references still to be checked against all channel names and its
     * keys' tenants against all tenant names.
     */
    record BoundChannel(ChannelConfig config, List<ChannelReferences.Ref> fallback, List<ChannelReferences.Ref> keyTenants) {
    }

    private static final Set<String> FIELDS = Set.of("name", "baseUrl", "models", "modelMap", "strategy", "timeout",
            "maxRetries", "cooldown", "disableAfter", "quotaZone", "pricing", "keys", "fallback", "breaker", "apis", "auth",
            "probe", "warmup", "anthropicBeta", "type", "apiVersion", "deployments", "headers", "query",
            "cooldownMin", "cooldownMax", "recovery", "http2", "caFile");
    private static final Set<String> PRICE_FIELDS = Set.of("input", "output", "cacheRead", "cacheWrite");
    private static final Pattern BETA_FLAG = Pattern.compile("[A-Za-z0-9._-]+");
    /** An HTTP header name (RFC 9110 token). */
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    private static final String DEFAULT_STRATEGY = RoundRobinStrategy.NAME;
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    private static final int DEFAULT_MAX_RETRIES = 3;
    private static final Duration DEFAULT_COOLDOWN_MIN = Duration.ofSeconds(30);
    private static final Duration DEFAULT_COOLDOWN_MAX = Duration.ofSeconds(60);
    private static final int DEFAULT_DISABLE_AFTER = 5;

    private final KeyBinder keys = new KeyBinder();
    private final BreakerBinder breaker = new BreakerBinder();
    private final ProbeBinder probe = new ProbeBinder();
    private final RecoveryBinder recovery = new RecoveryBinder();

    Optional<BoundChannel> bind(ConfigNode node, UniqueNames names) {
        if (!node.checkMapping(FIELDS)) {
            return Optional.empty();
        }
        // read in the order of the example in docs/configuration.md, so that problems are listed roughly as the file reads
        String name = names.read(node.field("name")).orElse(null);
        String baseUrl = baseUrl(node.field("baseUrl")).orElse(null);
        List<String> models = models(node.field("models"));
        Map<String, String> modelMap = modelMap(node.field("modelMap"));
        String strategy = strategy(node.field("strategy")).orElse(DEFAULT_STRATEGY);
        Duration timeout = node.field("timeout").positiveDuration().orElse(DEFAULT_TIMEOUT);
        int maxRetries = node.field("maxRetries").integer(0).orElse(DEFAULT_MAX_RETRIES);
        ConfigNode cooldownNode = node.field("cooldown");
        Duration cooldown = cooldownNode.positiveDuration().orElse(null);
        Duration[] cooldownBounds = cooldownBounds(node, cooldownNode);
        int disableAfter = node.field("disableAfter").integer(1).orElse(DEFAULT_DISABLE_AFTER);
        ZoneId quotaZone = zone(node.field("quotaZone")).orElse(ZoneOffset.UTC);
        Map<String, ModelPrice> pricing = pricing(node.field("pricing"));
        List<ChannelReferences.Ref> keyTenants = new ArrayList<>();
        List<KeyConfig> keyList = keys.bind(node.field("keys"), keyTenants);
        List<ChannelReferences.Ref> fallback = ChannelReferences.read(node.field("fallback"));
        ProviderConfig provider = provider(node);
        ChannelConfig channel = new ChannelConfig(name, baseUrl, models, modelMap, strategy, timeout, maxRetries,
                cooldown, disableAfter, quotaZone, keyList, ChannelReferences.names(fallback),
                breaker.bind(node.field("breaker")), apis(node.field("apis")), auth(node.field("auth"), provider.type()), pricing,
                probe.bind(node.field("probe"), models), node.field("warmup").duration().orElse(Duration.ZERO),
                anthropicBeta(node.field("anthropicBeta")), provider, cooldownBounds[0], cooldownBounds[1],
                recovery.bind(node.field("recovery")));
        return Optional.of(new BoundChannel(channel, fallback, keyTenants));
    }

    /**
     * An absolute http(s) URL, without trailing slashes: the upstream paths ({@code /chat/completions}) are
     * appended to it. The value is not quoted in the problem, as URLs sometimes carry credentials.
     */
    private static Optional<String> baseUrl(ConfigNode node) {
        return node.requiredText().flatMap(text -> {
            try {
                URI uri = new URI(text);
                String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase();
                if ((scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null) {
                    return Optional.of(text.replaceAll("/+$", ""));
                }
            } catch (URISyntaxException invalid) {
                // reported below
            }
            node.problem("must be an absolute http or https URL");
            return Optional.empty();
        });
    }

    /**
     * {@code cooldownMin} and {@code cooldownMax}: the bounds of a cooling spread at random, min <= max; a channel
     * that sets a fixed {@code cooldown} sets neither.
     */
    private static Duration[] cooldownBounds(ConfigNode node, ConfigNode cooldownNode) {
        ConfigNode minNode = node.field("cooldownMin");
        ConfigNode maxNode = node.field("cooldownMax");
        Optional<Duration> min = minNode.positiveDuration();
        Optional<Duration> max = maxNode.positiveDuration();
        if (!cooldownNode.isAbsent() && (!minNode.isAbsent() || !maxNode.isAbsent())) {
            cooldownNode.problem("is a fixed cooling time: set it, or cooldownMin and cooldownMax, not both");
        }
        Duration lo = min.orElse(DEFAULT_COOLDOWN_MIN);
        Duration hi = max.orElse(DEFAULT_COOLDOWN_MAX);
        if (hi.compareTo(lo) < 0) {
            (maxNode.isAbsent() ? minNode : maxNode).problem("cooldownMin (" + Durations.format(lo)
                    + ") must not be longer than cooldownMax (" + Durations.format(hi) + ")");
            return new Duration[] {DEFAULT_COOLDOWN_MIN, DEFAULT_COOLDOWN_MAX};
        }
        return new Duration[] {lo, hi};
    }

    /** A time zone id such as {@code Asia/Shanghai} or {@code UTC}. */
    private static Optional<ZoneId> zone(ConfigNode node) {
        return node.text().flatMap(text -> {
            try {
                return Optional.of(ZoneId.of(text));
            } catch (DateTimeException unknown) {
                node.problem("unknown time zone " + Problems.quote(text) + " (use an id such as UTC or Asia/Shanghai)");
                return Optional.empty();
            }
        });
    }

    /**
     * USD per million tokens by upstream model name: {@code glm-4-flash: {input: 0.10, output: 0.10}}, both required;
     * {@code cacheRead} and {@code cacheWrite} optional, for providers that bill prompt-cache tokens apart.
     */
    private static Map<String, ModelPrice> pricing(ConfigNode node) {
        Map<String, ModelPrice> prices = new LinkedHashMap<>();
        node.entries().forEach((model, price) -> {
            if (!price.checkMapping(PRICE_FIELDS)) {
                return;
            }
            Optional<Double> input = usdPerMillion(price.field("input"));
            Optional<Double> output = usdPerMillion(price.field("output"));
            Optional<Double> cacheRead = optionalUsdPerMillion(price.field("cacheRead"));
            Optional<Double> cacheWrite = optionalUsdPerMillion(price.field("cacheWrite"));
            if (input.isPresent() && output.isPresent()) {
                prices.put(model, new ModelPrice(input.get(), output.get(), cacheRead.orElse(null), cacheWrite.orElse(null)));
            }
        });
        return prices;
    }

    private static Optional<Double> usdPerMillion(ConfigNode node) {
        if (node.isAbsent()) {
            node.problem("is required (USD per 1M tokens)");
            return Optional.empty();
        }
        return optionalUsdPerMillion(node);
    }

    /** Absent: empty, without a problem. */
    private static Optional<Double> optionalUsdPerMillion(ConfigNode node) {
        if (node.isAbsent()) {
            return Optional.empty();
        }
        return node.decimal().filter(usd -> {
            if (usd >= 0) {
                return true;
            }
            node.problem("must be >= 0");
            return false;
        });
    }

    private static List<String> models(ConfigNode node) {
        return node.nonEmptyList().stream().flatMap(item -> item.requiredText().stream()).toList();
    }

    private static Map<String, String> modelMap(ConfigNode node) {
        Map<String, String> renames = new LinkedHashMap<>();
        node.entries().forEach((model, upstream) -> upstream.requiredText().ifPresent(u -> renames.put(model, u)));
        return renames;
    }

    /** Absent: the default APIs; else a non-empty list of known API names. */
    private static Set<Api> apis(ConfigNode node) {
        if (node.isAbsent()) {
            return Api.DEFAULT;
        }
        Set<Api> apis = EnumSet.noneOf(Api.class);
        for (ConfigNode item : node.nonEmptyList()) {
            item.requiredText().ifPresent(name -> Api.named(name).ifPresentOrElse(apis::add,
                    () -> item.problem("unknown API " + Problems.quote(name) + " (use " + Api.names() + ")")));
        }
        return apis;
    }

    /**
     * The anthropic-beta flags passed to this channel's provider: flag names as Anthropic spells them
     * ({@code prompt-caching-2024-07-31}), or {@code *} alone for all. Absent: none pass, since a beta flag can turn
     * on paid or data-keeping features on a shared key.
     */
    private static List<String> anthropicBeta(ConfigNode node) {
        if (node.isAbsent()) {
            return List.of();
        }
        List<String> flags = new ArrayList<>();
        for (ConfigNode item : node.list()) {
            item.requiredText().ifPresent(flag -> {
                if (!flag.equals(ChannelConfig.ANY_BETA) && !BETA_FLAG.matcher(flag).matches()) {
                    item.problem("must be an anthropic-beta flag name (letters, digits, '.', '_', '-') or *");
                } else {
                    flags.add(flag);
                }
            });
        }
        if (flags.contains(ChannelConfig.ANY_BETA) && flags.size() > 1) {
            node.problem("* lets every flag through: list it alone");
        }
        return flags;
    }

    /** How the provider takes a key: bearer (default), x-api-key, or api-key (the default of type: azure). */
    private static ProviderAuth auth(ConfigNode node, ProviderConfig.Type type) {
        return node.text().flatMap(name -> {
            Optional<ProviderAuth> auth = ProviderAuth.named(name);
            if (auth.isEmpty()) {
                node.problem("unknown auth " + Problems.quote(name) + " (use " + ProviderAuth.names() + ")");
            }
            return auth;
        }).orElse(type == ProviderConfig.Type.AZURE ? ProviderAuth.API_KEY : ProviderAuth.BEARER);
    }

    /**
     * {@code type} (openai, the default, or azure), Azure's {@code apiVersion} (required there) and {@code deployments}
     * (only there), and the {@code headers} and {@code query} parameters any provider's calls carry. Header and query
     * values are read as secrets: a problem never quotes them.
     */
    private static ProviderConfig provider(ConfigNode node) {
        ConfigNode typeNode = node.field("type");
        ProviderConfig.Type type = typeNode.text().flatMap(name -> {
            Optional<ProviderConfig.Type> known = ProviderConfig.Type.named(name);
            if (known.isEmpty()) {
                typeNode.problem("unknown type " + Problems.quote(name) + " (use " + ProviderConfig.Type.names() + ")");
            }
            return known;
        }).orElse(ProviderConfig.Type.OPENAI);
        boolean azure = type == ProviderConfig.Type.AZURE;
        ConfigNode apiVersionNode = node.field("apiVersion");
        String apiVersion = null;
        if (azure) {
            apiVersion = apiVersionNode.requiredText().orElse(null);
        } else if (!apiVersionNode.isAbsent()) {
            apiVersionNode.problem("is only for type: azure");
        }
        ConfigNode deploymentsNode = node.field("deployments");
        if (!azure && !deploymentsNode.isAbsent()) {
            deploymentsNode.problem("is only for type: azure (Azure OpenAI's deployment names)");
        }
        Map<String, String> deployments = new LinkedHashMap<>();
        deploymentsNode.entries().forEach((model, deployment) ->
                deployment.requiredText().ifPresent(d -> deployments.put(model, d)));
        Map<String, String> headers = new LinkedHashMap<>();
        node.field("headers").entries().forEach((name, value) -> {
            if (!HEADER_NAME.matcher(name).matches()) {
                value.problem("is not an HTTP header name");
            }
            value.requiredSecret().ifPresent(v -> {
                if (v.indexOf('\r') >= 0 || v.indexOf('\n') >= 0) {
                    value.problem("must be one line");
                } else {
                    headers.put(name, v);
                }
            });
        });
        Map<String, String> query = new LinkedHashMap<>();
        node.field("query").entries().forEach((name, value) -> value.requiredSecret().ifPresent(v -> query.put(name, v)));
        return new ProviderConfig(type, apiVersion, deployments, headers, query, http2(node.field("http2")),
                caFile(node.field("caFile")).orElse(null));
    }

    /**
     * {@code auto} (the default: HTTP/2 offered over TLS) or {@code off}, which YAML 1.1 reads, unquoted, as the boolean
     * false: taken as off too.
     */
    private static ProviderConfig.Http2 http2(ConfigNode node) {
        return node.text().flatMap(name -> {
            Optional<ProviderConfig.Http2> known = name.equals("false") ? Optional.of(ProviderConfig.Http2.OFF)
                    : ProviderConfig.Http2.named(name);
            if (known.isEmpty()) {
                node.problem("unknown http2 " + Problems.quote(name) + " (use " + ProviderConfig.Http2.names() + ")");
            }
            return known;
        }).orElse(ProviderConfig.Http2.AUTO);
    }

    /** A readable PEM file of one or more certificates, relative to the working directory; read now, so a bad one stops the start. */
    private static Optional<Path> caFile(ConfigNode node) {
        return node.text().flatMap(text -> {
            Path file = Path.of(text);
            if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
                node.problem("no readable file at " + Problems.quote(text) + " (looked at " + file.toAbsolutePath() + ")");
                return Optional.empty();
            }
            try {
                CaCertificates.read(file);
                return Optional.of(file);
            } catch (IOException | CertificateException unreadable) {
                node.problem("is not a PEM file of certificates (" + unreadable.getMessage() + ")");
                return Optional.empty();
            }
        });
    }

    private static Optional<String> strategy(ConfigNode node) {
        return node.text().filter(strategy -> {
            if (SelectionStrategy.NAMES.contains(strategy)) {
                return true;
            }
            node.problem("unknown strategy " + Problems.quote(strategy)
                    + " (use " + String.join(", ", SelectionStrategy.NAMES) + ")");
            return false;
        });
    }
}
