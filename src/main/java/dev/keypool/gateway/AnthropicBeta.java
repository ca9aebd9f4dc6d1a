package dev.keypool.gateway;

import java.util.List;

import dev.keypool.config.ChannelConfig;

/**
 * The client's anthropic-beta flags a channel passes on (design §15, {@code channels[].anthropicBeta}): a beta flag can
 * turn on paid or data-keeping features (files, batches, longer outputs) on a key shared by every tenant, so only the
 * flags the operator listed for the channel reach its provider.
 */
public final class AnthropicBeta {

    private AnthropicBeta() {
    }

    /**
     * The flags of {@code header} (comma separated, as the SDKs send them) that {@code allowed} lets through, in their
     * order and joined the same way; null when none is left, so that no header is sent.
     */
    public static String filter(String header, List<String> allowed) {
        if (header == null || allowed.isEmpty()) {
            return null;
        }
        if (allowed.contains(ChannelConfig.ANY_BETA)) {
            return header;
        }
        StringBuilder passed = new StringBuilder();
        for (String flag : header.split(",")) {
            String name = flag.trim();
            if (!name.isEmpty() && allowed.contains(name)) {
                passed.append(passed.isEmpty() ? "" : ",").append(name);
            }
        }
        return passed.isEmpty() ? null : passed.toString();
    }
}
