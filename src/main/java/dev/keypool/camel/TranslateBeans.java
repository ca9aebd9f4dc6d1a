package dev.keypool.camel;

import java.time.Clock;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keypool.camel.pipeline.Translations;
import dev.keypool.quota.TokenEstimator;
import dev.keypool.translate.TranslationSettings;
import org.apache.camel.CamelContext;

/** Translation between OpenAI's chat and Anthropic's Messages for channels of the other format (design §17). */
final class TranslateBeans {

    private TranslateBeans() {
    }

    /** After {@link PipelineBeans}: it shares the pipeline's token estimator (an encoding loaded once). */
    static void bind(CamelContext context, ObjectMapper mapper, Clock clock) {
        TokenEstimator tokens = context.getRegistry().lookupByNameAndType("tokenEstimator", TokenEstimator.class);
        TranslationSettings settings = new TranslationSettings(
                Wiring.longSetting(context, "keypool.translate.default-max-tokens"));
        context.getRegistry().bind("translations", new Translations(mapper, tokens, settings, clock));
    }
}
