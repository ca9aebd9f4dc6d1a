package dev.keypool.gateway;

import dev.keypool.config.Api;
import dev.keypool.config.ChannelConfig;
import dev.keypool.translate.Translation;

/**
 * The two request formats a channel may speak, OpenAI's chat and Anthropic's Messages (its {@code apis}), and which
 * translation a request of one needs on a channel of the other (design §17).
 */
public final class Formats {

    private Formats() {
    }

    /** The API of the other format: chat for messages and back; null for an API that has no other format. */
    public static Api other(Api api) {
        return api == Api.MESSAGES ? Api.CHAT : api == Api.CHAT ? Api.MESSAGES : null;
    }

    /** Whether a request of {@code api} can go to the channel: natively or translated. */
    public static boolean reachable(Api api, ChannelConfig channel) {
        return channel.servesApi(api) || other(api) != null && channel.servesApi(other(api));
    }

    /** The translation a request of {@code api} needs on the channel; null when the channel speaks it. */
    public static Translation translation(Api api, ChannelConfig channel) {
        if (channel.servesApi(api)) {
            return null;
        }
        return api == Api.MESSAGES && channel.servesApi(Api.CHAT) ? Translation.ANTHROPIC_TO_OPENAI
                : api == Api.CHAT && channel.servesApi(Api.MESSAGES) ? Translation.OPENAI_TO_ANTHROPIC : null;
    }
}
