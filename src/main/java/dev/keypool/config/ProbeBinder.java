package dev.keypool.config;

import java.util.List;
import java.util.Set;

/** The optional {@code probe} block of one channel; absent = the channel's keys are never probed. */
final class ProbeBinder {

    private static final Set<String> FIELDS = Set.of("interval", "disabledInterval", "request", "model", "timeout");

    /**
     * @param models the channel's models: a chat probe without {@code model} asks for the first one that is not
     *               {@code "*"}
     * @return null when the block is absent
     */
    ProbeConfig bind(ConfigNode node, List<String> models) {
        if (node.isAbsent() || !node.checkMapping(FIELDS)) {
            return null;
        }
        ConfigNode requestNode = node.field("request");
        ProbeConfig.Request request = requestNode.text().flatMap(name -> {
            var named = ProbeConfig.Request.named(name);
            if (named.isEmpty()) {
                requestNode.problem("unknown probe request " + Problems.quote(name) + " (use " + ProbeConfig.Request.names() + ")");
            }
            return named;
        }).orElse(ProbeConfig.Request.MODELS);
        ConfigNode modelNode = node.field("model");
        String model = modelNode.text().filter(m -> !m.isEmpty())
                .orElseGet(() -> models.stream().filter(m -> !ChannelConfig.ANY_MODEL.equals(m)).findFirst().orElse(null));
        if (request == ProbeConfig.Request.CHAT && model == null) {
            modelNode.problem("is required for request: chat when the channel lists no model but \"*\"");
        }
        return new ProbeConfig(
                node.field("interval").duration().orElse(ProbeConfig.DEFAULT_INTERVAL),
                node.field("disabledInterval").duration().orElse(ProbeConfig.DEFAULT_DISABLED_INTERVAL),
                request, model,
                node.field("timeout").positiveDuration().orElse(ProbeConfig.DEFAULT_TIMEOUT));
    }
}
